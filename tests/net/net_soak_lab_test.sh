#!/usr/bin/env bash
# soak --lab through two TLS board agents on 127.0.0.1 (docs/lab.md): a fresh lab CA and
# certificates (ctte-lab lab init-ca / issue), two `ctte-board --listen tcp:127.0.0.1:0` agents,
# an inventory naming them, and the first 40 runs of the smoke campaign through them. Every run's
# seed, config, stream SHA-256 and status must equal the golden row of the same index
# (tests/behaviour/golden/smoke.tsv).
# Usage: net_soak_lab_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
. "$src/tests/net/net_lab.sh"
net_lab_certs
[ "$(stat -c %a "$work/certs/runner.key")" = 600 ] || { echo "FAIL: key not 0600"; exit 1; }
if "$lab" lab issue runner --role runner --ca "$work/ca" --out "$work/certs" 2>/dev/null; then
  echo "FAIL: issue overwrote an existing key"; exit 1
fi

start_agent board-a; port_a=$port
start_agent board-b; port_b=$port
write_lab_json "$port_a" "$port_b" ',
   "usb": {"serial": "FT4232-0042", "hub_port": "1-2.3"}'

rc=0
"$lab" soak "$src/campaigns/smoke.json" --lab "$work/lab.json" --runs 40 --db "$work/lab.db" \
  --report-dir "$work/reports" >"$work/soak.log" 2>&1 || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 3 ]; then
  echo "FAIL: soak exit $rc"; cat "$work/soak.log"; cat "$work"/board-*.log; exit 1
fi
check_golden_rows 40
# Both agents served the soak, and logged the runner by its certificate name.
for name in board-a board-b; do
  grep -q "client 'runner' at 127.0.0.1:" "$work/$name.log" || {
    echo "FAIL: agent $name served no session"; cat "$work/$name.log"; exit 1; }
done
echo "ok: 40 smoke runs through two TLS agents identical to the golden rows"

#!/usr/bin/env bash
# A legitimate soak through two TLS board agents while hostile peers attack both (issue #27;
# docs/lab.md "Limits"): tests/net/net_attacker.py holds 32 silent connections a port from
# 127.0.0.2 (reopened as the agents close them), sends garbage from 127.0.0.3 about 50 times a
# second and drips bytes from 127.0.0.4, from before the soak starts to after it ends. The first
# 40 smoke runs must still equal their golden rows with no infrastructure attempt (every connect
# and handshake of the runner within its 10 s timeout), and the agents' own logs must show the
# attack refused: silent peers over the per-address limit, garbage that failed the handshake.
# Usage: net_soak_attack_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
. "$src/tests/net/net_lab.sh"
two_agents

python3 "$src/tests/net/net_attacker.py" "$port_a" "$port_b" 2>"$work/attacker.log" &
attacker=$!
pids+=($attacker)
# The attack is under way before the runner connects: both agents refuse over-limit peers.
for name in board-a board-b; do
  for _ in $(seq 100); do
    grep -q 'handshakes in flight from 127.0.0.2 (the per-address limit)' "$work/$name.log" && break
    sleep 0.1
  done
done

rc=0
"$lab" soak "$src/campaigns/smoke.json" --lab "$work/lab.json" --runs 40 --db "$work/lab.db" \
  --report-dir '' --json >"$work/soak.json" 2>"$work/soak.log" || rc=$?
kill -TERM "$attacker"
wait "$attacker" || true
cat "$work/attacker.log"
[ $rc -eq 0 ] || { echo "FAIL: soak exit $rc"; cat "$work/soak.log"; tail -20 "$work"/board-*.log; exit 1; }

check_golden_rows 40
attempts=$(sqlite3 "$work/lab.db" "SELECT COUNT(*) FROM run_attempts")
[ "$attempts" -eq 0 ] || {
  echo "FAIL: $attempts infrastructure attempts under attack"; cat "$work/soak.log"; exit 1; }

# What the agents logged: the attack refused, the runner served.
for name in board-a board-b; do
  log=$work/$name.log
  for want in "handshakes in flight from 127.0.0.2 (the per-address limit)" \
              "dropped 127.0.0.3:" "client 'runner' at 127.0.0.1:"; do
    grep -qF "$want" "$log" || { echo "FAIL: agent $name never logged '$want'"; tail -30 "$log"; exit 1; }
  done
  if grep -q "client '.*' at 127.0.0.[234]:" "$log"; then
    echo "FAIL: agent $name gave an attacker a session"; exit 1
  fi
  echo "$name: $(grep -c 'the per-address limit' "$log") over-limit lines," \
       "$(grep -c 'dropped 127.0.0.3:' "$log") garbage peers dropped," \
       "$(grep -c "holds the lease" "$log") runner sessions"
done
python3 - "$work/soak.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["session"]
print(f"ok: {s['runs']} runs ({s['green']} green) under attack in {s['elapsed_seconds']:.1f} s, "
      f"identical to the golden rows, no infrastructure attempt")
PY

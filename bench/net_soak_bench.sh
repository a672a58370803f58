#!/usr/bin/env bash
# The cost of the network path (docs/lab.md): the first RUNS smoke runs on two boards, either
# through two TLS board agents on 127.0.0.1 (`net`: soak --lab, payloads by hash, heartbeats)
# or on two board child processes (`local`: --boards 2). Prints runs per hour (the soak's own
# elapsed time) and, for `net`, the protocol bytes each run moved (summed over the agents'
# session logs: bytes from and to the client) and the image deploys the agents skipped.
# Time the whole thing as a pair, e.g. `/usr/bin/time -v bash bench/net_soak_bench.sh local 40`
# then the same with `net`, in turn, and compare user, system and wall time.
# `attack` is `net` while tests/net/net_attacker.py attacks both agents (silent, garbage and
# slow peers from 127.0.0.2-4; docs/lab.md "Limits"): pair it with `net` to see what the attack
# costs a soak, e.g. farm-bench --vs 'bash bench/net_soak_bench.sh net 40' -- bash
# bench/net_soak_bench.sh attack 40.
# `table` is `attack` plus the hostile-peer table (net_hostile_test, all cases, in a loop)
# aimed at agent board-a from the moment the runner holds its lease to the end of the soak, as
# tests/net/net_soak_attack_test.sh does; the agents then have a 1 s handshake deadline.
# Usage: bench/net_soak_bench.sh net|attack|table|local [RUNS] (BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?net, attack, table or local} runs=${2:-40}
build=${BUILD_DIR:-build}
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
. tests/net/net_lab.sh
case "$mode" in
  net|attack) two_agents ;;
  table)
    net_lab_certs
    "$lab" lab issue revoked --role runner --ca "$work/ca" --out "$work/certs" >/dev/null
    "$lab" lab revoke revoked --ca "$work/ca" --out "$work/certs" >/dev/null
    AGENT_ALLOW=runner,revoked,expired AGENT_FLAGS="--handshake-timeout 1"
    start_agent board-a; port_a=$port
    start_agent board-b; port_b=$port
    write_lab_json "$port_a" "$port_b" ;;
  local) ;;
  *) echo "net_soak_bench: unknown mode '$mode' (net, attack, table or local)" >&2; exit 2 ;;
esac
if [ "$mode" = local ]; then
  where=(--boards 2)
else
  where=(--lab "$work/lab.json")
  if [ "$mode" = attack ] || [ "$mode" = table ]; then
    python3 tests/net/net_attacker.py "$port_a" "$port_b" 2>"$work/attacker.log" &
    pids+=($!)
    sleep 1  # the attack is under way before the runner connects
  fi
fi
"$lab" soak campaigns/smoke.json "${where[@]}" --runs "$runs" --db "$work/b.db" \
  --report-dir '' --json >"$work/soak.json" 2>"$work/soak.log" &
soak=$!
if [ "$mode" = table ]; then
  for _ in $(seq 300); do
    grep -q "client 'runner' at 127.0.0.1:.* holds the lease" "$work/board-a.log" && break
    sleep 0.1
  done
  (while kill -0 "$soak" 2>/dev/null; do
     CTTE_HOSTILE_LAB=$work CTTE_HOSTILE_PORT=$port_a CTTE_HOSTILE_LOG=$work/board-a.log \
       CTTE_HOSTILE_LEASED=runner CTTE_HOSTILE_IMAGE=$(ls "$build"/images/*.so | head -1) \
       "$build/tests/net_hostile_test" --gtest_filter='Cases/HostilePeerTest.*' >/dev/null 2>&1 || true
   done) &
  pids+=($!)
fi
wait "$soak"
if [ "$mode" = table ]; then
  echo "table: $(grep -c 'busy: leased by runner' "$work/board-a.log") hostile peers told busy" \
       "during the soak"
fi
sleep 0.5  # the agents log each session's bytes as it ends
python3 - "$work/soak.json" "$mode" "$runs" "$work" <<'PY'
import json, re, sys, glob
s = json.load(open(sys.argv[1])); mode, runs, work = sys.argv[2], int(sys.argv[3]), sys.argv[4]
sess = s["session"]
print(f"{mode}: {sess['runs']} runs ({sess['green']} green) in {sess['elapsed_seconds']:.1f} s: "
      f"{sess['runs'] * 3600 / sess['elapsed_seconds']:.0f} runs/h, {sess['deploys']} deploys")
if mode in ("net", "attack", "table"):
    up = down = skipped = 0
    for log in glob.glob(work + "/board-*.log"):
        for line in open(log):
            m = re.search(r"bytes from client (\d+), to client (\d+)", line)
            if m: up += int(m.group(1)); down += int(m.group(2))
            if "skipped: the board holds" in line: skipped += 1
    n = max(sess["runs"], 1)
    print(f"{mode}: bytes per run: {up / n:.0f} to the agents, {down / n:.0f} from them "
          f"({(up + down) / n:.0f} in all); {skipped} deploys skipped by the agents")
PY

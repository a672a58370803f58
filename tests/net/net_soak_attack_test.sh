#!/usr/bin/env bash
# A legitimate soak through two TLS board agents while hostile peers attack both (issue #27;
# docs/lab.md "Limits"):
# - tests/net/net_attacker.py holds 32 silent connections a port from 127.0.0.2 (reopened as
#   the agents close them), sends garbage from 127.0.0.3 about 50 times a second and drips
#   bytes from 127.0.0.4, from before the soak starts to after it ends;
# - the hostile-peer table (net_hostile_test, every case, tests/net/hostile_peer_test.cc) runs
#   against agent board-a while the runner soaks through it: every case that gets past the
#   handshake must be told "busy: leased by runner", every other refused for its stated reason,
#   nothing outside the agent's folders touched (inotify and stat sweep), and a good runner's
#   handshake timed after each case;
# - the soak is then stopped (SIGINT), and the same table runs again against the same agent
#   process, now free, so every op reaches the checks of a real simulated board.
# The soak's runs must all be green, the first 240 equal to their golden rows, with no
# infrastructure attempt (every connect and handshake of the runner within its 10 s timeout);
# the agents' own logs must show the attack refused and no session for an attacker.
# Usage: net_soak_attack_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
hostile=$build/tests/net_hostile_test
. "$src/tests/net/net_lab.sh"
net_lab_certs
# A revoked runner (revoked before the agents load the CA's list) and the table's other
# allowlisted names; runner-b and an expired runner are issued by the table itself.
"$lab" lab issue revoked --role runner --ca "$work/ca" --out "$work/certs" >/dev/null
"$lab" lab revoke revoked --ca "$work/ca" --out "$work/certs" >/dev/null
AGENT_ALLOW=runner,revoked,expired
AGENT_FLAGS="--handshake-timeout 1"  # the table's silent peers expect a 1 s deadline
start_agent board-a; port_a=$port
start_agent board-b; port_b=$port
write_lab_json "$port_a" "$port_b"
image=$(ls "$build"/images/*.so | head -1)

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

# The soak: more runs than the table needs; stopped by SIGINT once the table is done.
"$lab" soak "$src/campaigns/smoke.json" --lab "$work/lab.json" --runs 100000 --db "$work/lab.db" \
  --report-dir '' --json >"$work/soak.json" 2>"$work/soak.log" &
soak=$!
pids+=($soak)
for _ in $(seq 300); do
  grep -q "client 'runner' at 127.0.0.1:.* holds the lease" "$work/board-a.log" && break
  sleep 0.1
done

table() {  # NAME LEASED_BY
  local rc=0
  CTTE_HOSTILE_LAB=$work CTTE_HOSTILE_PORT=$port_a CTTE_HOSTILE_LOG=$work/board-a.log \
    CTTE_HOSTILE_LEASED=$2 CTTE_HOSTILE_IMAGE=$image \
    "$hostile" --gtest_filter='Cases/HostilePeerTest.*' --gtest_brief=1 >"$work/$1.out" 2>&1 || rc=$?
  grep -E "^\[  (PASSED|FAILED) |good runner's TLS handshake" "$work/$1.out" || true
  [ $rc -eq 0 ] || {
    echo "FAIL: the hostile table ($1)"
    { grep -B2 -A12 "Failure" "$work/$1.out" || tail -20 "$work/$1.out"; } | head -60
    echo "--- board-a's log:"; grep -v "127.0.0.[234]" "$work/board-a.log" | tail -40; exit 1; }
}
table leased runner
kill -0 "$soak" 2>/dev/null || { echo "FAIL: the soak ended before the table did"; cat "$work/soak.log"; exit 1; }
kill -INT "$soak"
rc=0
wait "$soak" || rc=$?
[ $rc -eq 130 ] || { echo "FAIL: soak exit $rc (expected 130, stopped by SIGINT)"; cat "$work/soak.log"; exit 1; }
for _ in $(seq 100); do
  grep -q "lease released" "$work/board-a.log" && break
  sleep 0.1
done
table free ""
kill -TERM "$attacker"
wait "$attacker" || true
cat "$work/attacker.log"

# The soak: every run green, the first 240 equal to the golden rows, no infrastructure attempt.
runs=$(sqlite3 "$work/lab.db" "SELECT COUNT(*) FROM runs WHERE replay_of IS NULL AND json_extract(config_json, '$.control') IS NULL")
red=$(sqlite3 "$work/lab.db" "SELECT COUNT(*) FROM runs WHERE replay_of IS NULL AND json_extract(config_json, '$.control') IS NULL AND status != 'green'")
[ "$runs" -ge 40 ] && [ "$red" -eq 0 ] || { echo "FAIL: $runs runs, $red not green"; cat "$work/soak.log"; exit 1; }
sqlite3 -separator $'\t' "$work/lab.db" \
  "SELECT idx, seed, config_json, IFNULL(stream_sha256, ''), status FROM runs
   WHERE replay_of IS NULL AND json_extract(config_json, '$.control') IS NULL AND idx < 240 ORDER BY idx" >"$work/lab.tsv"
awk -F'\t' 'NR==FNR {want[$1]=1; next} ($1 in want)' "$work/lab.tsv" \
  "$src/tests/behaviour/golden/smoke.tsv" >"$work/golden.tsv"
cmp -s "$work/golden.tsv" "$work/lab.tsv" || {
  echo "FAIL: runs through the agents differ from tests/behaviour/golden/smoke.tsv"
  diff <(cut -f1,2,4,5 "$work/golden.tsv") <(cut -f1,2,4,5 "$work/lab.tsv") | head -20; exit 1; }
attempts=$(sqlite3 "$work/lab.db" "SELECT COUNT(*) FROM run_attempts")
[ "$attempts" -eq 0 ] || {
  echo "FAIL: $attempts infrastructure attempts under attack"; cat "$work/soak.log"; exit 1; }

# What the agents logged: the attack refused, the runner served, the table's peers refused.
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
       "$(grep -c "holds the lease" "$log") sessions"
done
log=$work/board-a.log
echo "board-a, the table's agent: $(grep -c 'busy: leased by runner' "$log") peers told busy during" \
     "the soak, $(grep -c 'TLS handshake failed' "$log") failed handshakes," \
     "$(grep -c 'is not in this agent' "$log") runners off the allowlist"
if grep -q "client 'runner-b'\|client 'revoked'\|client 'expired'" "$log"; then
  echo "FAIL: board-a gave a refused certificate a session"; exit 1
fi
python3 - "$work/lab.db" "$runs" <<'PY'
import sqlite3, sys
print(f"ok: {sys.argv[2]} runs, all green, under attack and the hostile table; the first 240 "
      f"identical to the golden rows; no infrastructure attempt")
PY

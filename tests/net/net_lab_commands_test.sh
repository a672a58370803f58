#!/usr/bin/env bash
# Every command runs on the lab's boards (issue #26; docs/lab.md "Board source"), shown by what
# the agents logged, not by the runner's word. Five TLS agents on 127.0.0.1: board-a and board-b
# sound, board-c corrupting every capture, board-d and board-e corrupting half of them
# (ctte-board --test-corrupt-captures, a test-only fault). Four inventories: lab.json (a, b),
# bad.json (a, c), flaky.json (d, e).
#  1. soak --lab: the controls run on both agents (each agent caches a mutant image, the control
#     table names both boards, each with the clean controls); on (a, c) the clean control fails
#     on board-c: the campaign is UNSOUND (exit 4), the table names board-c, and board-c's draws
#     are reported unproven. A judge that never fails loss_accounting (lab_judge_test, in process
#     through the same inventory) fails the silent-drop control on both agents: UNSOUND.
#  2. run --lab --board-name board-b reaches board-b; replay --lab runs on the run's own board,
#     bit-identical, and names it.
#  3. bisect --lab and triage --lab of a red run (mutant-sync-icnt) run their legs on the agents;
#     triage says design. triage --lab of a run red on board-c says board_specific naming it;
#     on (d, e) it says flaky with its interval. Triage on a one-board inventory is refused.
# Usage: net_lab_commands_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
. "$src/tests/net/net_lab.sh"
fail() { echo "FAIL: $*"; exit 1; }
lines() { wc -l <"$work/$1.log"; }
# ran_since NAME LINE: agent NAME served a "run" request after line LINE of its log.
ran_since() { tail -n +"$(( $2 + 1 ))" "$work/$1.log" | grep -q '"run" (id '; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

net_lab_certs
for n in board-c board-d board-e; do
  "$lab" lab issue "$n" --role board --ca "$work/ca" --out "$work/certs" >/dev/null
done
start_agent board-a; port_a=$port
start_agent board-b; port_b=$port
AGENT_FLAGS="--test-corrupt-captures 1" start_agent board-c; port_c=$port
AGENT_FLAGS="--test-corrupt-captures 0.5" start_agent board-d; port_d=$port
AGENT_FLAGS="--test-corrupt-captures 0.5" start_agent board-e; port_e=$port
grep -q 'TEST: this board corrupts 1 of its captures' "$work/board-c.log" || fail "board-c log"
write_lab_json "$port_a" "$port_b"
inventory() {  # FILE NAME1 PORT1 NAME2 PORT2
  cat >"$work/$1" <<JSON
{"boards": [
  {"name": "$2", "kind": "net", "address": "127.0.0.1:$3",
   "cert": "certs/runner.crt", "key": "certs/runner.key", "ca": "ca/ca.crt"},
  {"name": "$4", "kind": "net", "address": "127.0.0.1:$5",
   "cert": "certs/runner.crt", "key": "certs/runner.key", "ca": "ca/ca.crt"}
]}
JSON
}
inventory bad.json board-a "$port_a" board-c "$port_c"
inventory flaky.json board-d "$port_d" board-e "$port_e"

# 1. Controls on the lab's boards.
"$lab" soak "$src/campaigns/smoke.json" --lab "$work/lab.json" --runs 4 --db "$work/lab.db" \
  --report-dir "" --store-streams all >"$work/soak.out" 2>&1 || { cat "$work/soak.out"; fail "soak"; }
for b in board-a board-b; do
  grep -q 'cached image "mutant-' "$work/$b.log" || fail "$b deployed no control mutant"
  grep -Eq "^clean +ntrace-slim +0 +$b +- +pass" "$work/soak.out" || {
    cat "$work/soak.out"; fail "no clean control on $b in the table"; }
  [ "$(grep -Ec "^[a-z-]+ +mutant-[a-z-]+ +0 +$b +[a-z_]" "$work/soak.out")" -ge 1 ] || fail "no red control on $b"
done
grep -q '^controls: 14/14 passed' "$work/soak.out" || { cat "$work/soak.out"; fail "controls"; }
rc=0
"$lab" soak "$src/campaigns/smoke.json" --lab "$work/bad.json" --runs 2 --db "$work/bad.db" \
  --report-dir "" >"$work/bad.out" 2>&1 || rc=$?
[ $rc -eq 4 ] || { cat "$work/bad.out"; fail "soak on a corrupting board: exit $rc, expected 4 (UNSOUND)"; }
grep -Eq "^clean +ntrace-slim +0 +board-c +- +FAIL" "$work/bad.out" || { cat "$work/bad.out"; fail "board-c's clean control"; }
grep -Eq "^clean +ntrace-slim +0 +board-a +- +pass" "$work/bad.out" || fail "board-a's clean control"
grep -q '^UNSOUND' "$work/bad.out" || fail "not UNSOUND"
grep -Eq '^board-c: [0-9]+ of [0-9]+ controls failed there: its [0-9]+ draws are unproven' "$work/bad.out" || {
  cat "$work/bad.out"; fail "board-c not reported untrusted"; }
grep -q '^board-a: ' "$work/bad.out" && fail "board-a reported untrusted"
ma=$(lines board-a) mb=$(lines board-b)
CTTE_LAB_JSON="$work/lab.json" "$build/tests/lab_judge_test" >"$work/judge.out" 2>&1 || {
  cat "$work/judge.out"; fail "a broken judge on the lab"; }
for b in board-a board-b; do  # the silent-drop control deployed on each agent
  m=$([ $b = board-a ] && echo "$ma" || echo "$mb")
  tail -n +"$((m + 1))" "$work/$b.log" | grep -q '"deploy" (id ' || fail "lab_judge_test: $b logged no deploy"
  ran_since $b "$m" || fail "lab_judge_test: $b logged no run"
done
echo "ok: controls ran on board-a and board-b (14/14); a broken judge and board-c's failed clean control make UNSOUND"

# 2. run and replay.
m=$(lines board-b)
"$lab" run --image "$build/images/ntrace-slim.manifest.json" --workload "$build/workloads/loop.elf" \
  --lab "$work/lab.json" --board-name board-b >"$work/run.out" 2>&1 || { cat "$work/run.out"; fail "run --lab"; }
grep -q '^board:  board-b (' "$work/run.out" || fail "run names no board"
ran_since board-b "$m" || fail "run --lab: board-b logged no run"
m=$(lines board-a)
"$lab" capture --image "$build/images/ntrace-slim.manifest.json" --workload "$build/workloads/loop.elf" \
  --fabric-mhz 90 --lab "$work/lab.json" --board-name board-a --out "$work/cap.bin" >"$work/cap.out" 2>&1 || {
  cat "$work/cap.out"; fail "capture --lab"; }
[ -s "$work/cap.bin" ] && grep -q 'on board-a' "$work/cap.out" || { cat "$work/cap.out"; fail "capture --lab output"; }
ran_since board-a "$m" || fail "capture --lab: board-a logged no run"
id=$(sqlite3 "$work/lab.db" "SELECT id FROM runs WHERE idx = 1 AND replay_of IS NULL")
owner=$(sqlite3 "$work/lab.db" "SELECT json_extract(b.info_json, '$.name') FROM runs r JOIN boards b ON b.id = r.board_id WHERE r.id = $id")
m=$(lines "$owner")
"$lab" replay "$id" --db "$work/lab.db" --lab "$work/lab.json" >"$work/replay.out" 2>&1 || {
  cat "$work/replay.out"; fail "replay --lab"; }
grep -q "^board:  $owner (" "$work/replay.out" || { cat "$work/replay.out"; fail "replay not on $owner"; }
grep -q '^stream: bit-identical' "$work/replay.out" || fail "replay not bit-identical"
ran_since "$owner" "$m" || fail "replay --lab: $owner logged no run"
# A stored digest from another board (as a real board would give under other clock phases): the
# replay's bytes differ, its decode agrees: decode-equivalent, a difference on a simulator (exit 1).
cp "$work/lab.db" "$work/de.db"
sqlite3 "$work/de.db" "UPDATE runs SET stream_sha256 = '$(printf 'e%.0s' $(seq 64))' WHERE id = $id"
rc=0
"$lab" replay "$id" --db "$work/de.db" --lab "$work/lab.json" --artifacts none --json >"$work/de.json" 2>"$work/de.err" || rc=$?
[ $rc -eq 1 ] && [ "$(json "$work/de.json" "d['replay_outcome']")" = decode-equivalent ] || {
  cat "$work/de.json" "$work/de.err"; fail "decode-equivalent replay: exit $rc"; }
grep -q 'decode-equivalent on a simulated board' "$work/de.err" || fail "no simulated-board note"
echo "ok: run --lab on board-b, capture --lab on board-a; replay --lab of run $id on its own board $owner, bit-identical"

# 3. bisect and triage.
cat >"$work/xterm.json" <<'JSON'
{"name": "xterm", "seed": "0x7a1", "runs": 4, "images": ["mutant-sync-icnt"],
 "clocks": {"fabric_mhz": 90, "sink_mhz": 100}, "horizon_retirements": 4000,
 "axes": {"overflow_regime": ["none"], "backpressure": ["none"], "mode": ["btm"],
          "sync": ["off", "halfwords:6"], "workload": ["loop"], "window": ["full"],
          "interrupts": ["none"]}}
JSON
"$lab" soak "$work/xterm.json" --lab "$work/lab.json" --db "$work/x.db" --report-dir "" \
  >"$work/x.out" 2>&1 || [ $? -eq 1 ] || { cat "$work/x.out"; fail "xterm soak"; }
red=$(sqlite3 "$work/x.db" "SELECT id FROM runs WHERE status = 'red' ORDER BY id LIMIT 1")
[ -n "$red" ] || { cat "$work/x.out"; fail "no red run"; }
ma=$(lines board-a) mb=$(lines board-b)
"$lab" bisect "$red" --db "$work/x.db" --lab "$work/lab.json" --baseline spec --repeats 8 \
  --max-repeats 8 --out-dir "$work/triage" --json >"$work/bisect.json" 2>"$work/bisect.err" || {
  cat "$work/bisect.err"; fail "bisect --lab"; }
[ "$(json "$work/bisect.json" "d['culprits']")" = "['sync']" ] || { cat "$work/bisect.json"; fail "bisect culprits"; }
ran_since board-a "$ma" || ran_since board-b "$mb" || fail "bisect --lab: no agent logged a leg"
ma=$(lines board-a) mb=$(lines board-b)
"$lab" triage "$red" --db "$work/x.db" --lab "$work/lab.json" --repeats 3 --json \
  >"$work/triage.json" 2>"$work/triage.err" || { cat "$work/triage.err"; fail "triage --lab"; }
[ "$(json "$work/triage.json" "d['classification']")" = design ] || { cat "$work/triage.json"; fail "triage: not design"; }
ran_since board-a "$ma" && ran_since board-b "$mb" || fail "triage --lab: both agents must log runs"
echo "ok: bisect --lab blames sync, triage --lab says design; both agents logged the legs"

# A clean image on board-c alone (--board-name): red only by its corrupted captures.
sed 's/"mutant-sync-icnt"/"ntrace-slim"/; s/"runs": 4/"runs": 3/' "$work/xterm.json" >"$work/plain.json"
"$lab" soak "$work/plain.json" --lab "$work/bad.json" --board-name board-c --db "$work/c.db" \
  --report-dir "" >"$work/c.out" 2>&1 || [ $? -eq 1 ] || { cat "$work/c.out"; fail "soak on board-c"; }
red_c=$(sqlite3 "$work/c.db" "SELECT id FROM runs WHERE status = 'red' ORDER BY id LIMIT 1")
[ -n "$red_c" ] || { cat "$work/c.out"; fail "no run red on board-c"; }
"$lab" triage "$red_c" --db "$work/c.db" --lab "$work/bad.json" --repeats 5 --json \
  >"$work/tc.json" 2>"$work/tc.err" || { cat "$work/tc.err"; fail "triage on bad.json"; }
[ "$(json "$work/tc.json" "d['classification']")" = board_specific ] || { cat "$work/tc.json"; fail "not board_specific"; }
json "$work/tc.json" "d['summary']" | grep -q 'red on board-c' || fail "board_specific names no board-c"
echo "ok: triage --lab says $(json "$work/tc.json" "d['summary']")"
# Replay on the lab finds the run's own board by its identity, or says it is not there.
rc=0
"$lab" replay "$red_c" --db "$work/c.db" --lab "$work/lab.json" >"$work/gone.out" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q 'board-c, remote:sim serial .*no board reports .*board-a: .*board-b: .*--board-name' "$work/gone.out" || {
  cat "$work/gone.out"; fail "replay of a board-c run on (a, b): exit $rc"; }

sed 's/"runs": 3/"runs": 6/' "$work/plain.json" >"$work/plain6.json"
"$lab" soak "$work/plain6.json" --lab "$work/flaky.json" --board-name board-d --db "$work/f.db" \
  --report-dir "" >"$work/f.out" 2>&1 || [ $? -eq 1 ] || { cat "$work/f.out"; fail "soak on board-d"; }
red_f=$(sqlite3 "$work/f.db" "SELECT id FROM runs WHERE status = 'red' ORDER BY id LIMIT 1")
[ -n "$red_f" ] || { sqlite3 "$work/f.db" "SELECT id, status FROM runs"; fail "no red run on board-d"; }
"$lab" triage "$red_f" --db "$work/f.db" --lab "$work/flaky.json" --repeats 5 --json \
  >"$work/tf.json" 2>"$work/tf.err" || { cat "$work/tf.err"; fail "triage on flaky.json"; }
[ "$(json "$work/tf.json" "d['classification']")" = flaky ] || { cat "$work/tf.json"; fail "not flaky"; }
echo "ok: triage --lab says $(json "$work/tf.json" "d['summary']") (interval $(json "$work/tf.json" "d['interval']"))"

# Fewer than two boards: refused, no board invented.
rc=0
"$lab" triage "$red" --db "$work/x.db" --lab "$work/lab.json" --board-name board-a >"$work/one.out" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q 'needs two boards' "$work/one.out" || { cat "$work/one.out"; fail "triage on one board: exit $rc"; }
echo "ok: triage on one board is refused: $(cat "$work/one.out")"

#!/usr/bin/env bash
# SIGKILL of one board agent mid-soak (docs/lab.md "Health and quarantine"): two TLS agents on
# 127.0.0.1, the first 40 smoke runs with --lab; once agent board-b has served a few runs it is
# killed with SIGKILL. The run it held becomes one infrastructure failure (an earlier attempt
# in run_attempts, on board-b), is retried on board-a, board-b is quarantined (it cannot be
# reopened) and named in the summary, and the campaign finishes with every index stored, each
# row equal to the golden row of the same index.
# Usage: net_soak_kill_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
lab=$build/bin/ctte-lab board=$build/bin/ctte-board
. "$src/tests/net/net_lab.sh"
two_agents

"$lab" soak "$src/campaigns/smoke.json" --lab "$work/lab.json" --runs 40 --db "$work/lab.db" \
  --report-dir "$work/reports" --json >"$work/soak.json" 2>"$work/soak.log" &
soak_pid=$!
pids+=($soak_pid)
# Kill board-b as soon as it has started a draw after its second (a run request in flight).
# Its controls come first, on the same session (runner/controls.h: every board runs some).
draws_on_b() { cat "$work"/reports/smoke-*.log 2>/dev/null | grep -c 'board-b: run [0-9]* (id ' || true; }
for _ in $(seq 1200); do
  [ "$(draws_on_b)" -ge 2 ] && break
  sleep 0.05
done
[ "$(draws_on_b)" -ge 2 ] || { echo "FAIL: board-b never ran 2 draws"; cat "$work/soak.log"; exit 1; }
n0=$(grep -c ': "run" (id ' "$work/board-b.log" || true)
for _ in $(seq 600); do
  n=$(grep -c ': "run" (id ' "$work/board-b.log" || true)
  [ "$n" -gt "$n0" ] && break
  sleep 0.01
done
kill -KILL "$pid_b"
rc=0
wait "$soak_pid" || rc=$?
[ $rc -eq 0 ] || { echo "FAIL: soak exit $rc"; cat "$work/soak.log"; cat "$work/soak.json"; exit 1; }

check_golden_rows 40
# Exactly one earlier attempt: infra, on board-b; its run is green on board-a.
attempts=$(sqlite3 -separator ' ' "$work/lab.db" \
  "SELECT a.status, a.infra_cause, ab.serial = rb.serial FROM run_attempts a
   JOIN runs r ON r.id = a.run_id JOIN boards ab ON ab.id = a.board_id JOIN boards rb ON rb.id = r.board_id")
[ "$(echo "$attempts" | grep -c .)" -eq 1 ] || { echo "FAIL: attempts: $attempts"; cat "$work/soak.log"; exit 1; }
case "$attempts" in
  "infra "*" 0") ;;
  *) echo "FAIL: the attempt is '$attempts' (expected infra on the other board)"; exit 1 ;;
esac
grep -q '"board-b (cannot reopen' "$work/soak.json" || {
  echo "FAIL: board-b not named as quarantined"; cat "$work/soak.json"; exit 1; }
log=$(ls "$work"/reports/smoke-*.log)
grep -q 'board-b: quarantined: cannot reopen' "$log" || { echo "FAIL: log"; cat "$log"; exit 1; }
grep -q 'goes to another board' "$log" || { echo "FAIL: log has no hand-off"; cat "$log"; exit 1; }
grep -q 'Quarantined at the end of the soak' "$work"/reports/smoke-*.html || {
  echo "FAIL: the HTML report does not name the quarantined board"; exit 1; }
echo "ok: SIGKILL of board-b mid-soak: one infra attempt, retried on board-a, 40 golden rows"

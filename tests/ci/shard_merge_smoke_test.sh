#!/usr/bin/env bash
# The smoke campaign's first 60 runs (--runs 60: the subject is sharding and merging, not the
# whole campaign; #25) run as 3 shards (`soak --shard i/3`, one database each) and merged with
# `ctte-lab db merge` give, index for index, the seeds, configs, stream SHA-256 and statuses of
# the unsharded campaign (the first 60 rows of tests/behaviour/golden/smoke.tsv: run i is
# Draw(spec, i) whatever the run count); merging again changes nothing;
# history, report and replay work on the merged file; a conflicting input is refused naming the
# campaign, the index and both files, and leaves the output as it was. Each shard's control runs
# are rows of their own (indexed and marked by the shard): all 3 x 12 survive the merge, and a
# control that failed on shard 2 makes the merged campaign UNSOUND in the text, HTML and JUnit
# reports and in `report --check` (exit 4).
# Usage: shard_merge_smoke_test.sh CTTE_LAB SOURCE_DIR
set -euo pipefail
lab=$(realpath "$1") src=$(realpath "$2")
. "$src/tests/ci/ci_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
runs=60
head -n $runs "$src/tests/behaviour/golden/smoke.tsv" >"$work/golden.tsv"

for i in 1 2 3; do
  "$lab" soak "$src/campaigns/smoke.json" --shard "$i/3" --runs $runs --boards 2 \
    --db "$work/shard_$i.db" \
    --report-dir "" >"$work/soak-$i.log" 2>&1 || { cat "$work/soak-$i.log"; fail "shard $i/3"; }
done
"$lab" db merge "$work/merged.db" "$work"/shard_{1,2,3}.db >"$work/merge.log" 2>&1 ||
  { cat "$work/merge.log"; fail "merge failed"; }
runs_tsv "$work/merged.db" >"$work/merged.tsv"
if ! cmp -s "$work/golden.tsv" "$work/merged.tsv"; then
  diff <(cut -f1,2,4,5 "$work/golden.tsv") <(cut -f1,2,4,5 "$work/merged.tsv") |
    head -20 || true
  fail "merged shards differ from the first $runs rows of tests/behaviour/golden/smoke.tsv"
fi
[ "$(sqlite3 "$work/merged.db" "SELECT COUNT(*) FROM campaigns")" = 1 ] || fail "campaign rows"
ctl_q="SELECT json_extract(config_json, '\$.control.shard'), COUNT(*) FROM runs
       WHERE json_extract(config_json, '\$.control') IS NOT NULL GROUP BY 1 ORDER BY 1"
# 12 controls, 2 of them clean: each shard's 2 boards both run the clean ones (runner/controls.h,
# placement), so 14 control runs a shard.
[ "$(sqlite3 "$work/merged.db" "$ctl_q" | tr '\n' ' ')" = "1/3|14 2/3|14 3/3|14 " ] ||
  fail "merged control runs by shard: $(sqlite3 "$work/merged.db" "$ctl_q" | tr '\n' ' ')"
"$lab" report smoke --db "$work/merged.db" --check >"$work/check.log" ||
  { cat "$work/check.log"; fail "report --check on the merged shards is not green"; }

# Shard 2's boards did not catch its silent-drop mutant (its stored control result failed, as
# the soak writes it when a control fails): the merged campaign is UNSOUND everywhere.
cp "$work/shard_2.db" "$work/shard_2_bad.db"
sqlite3 "$work/shard_2_bad.db" "UPDATE runs SET metrics_json = json_set(metrics_json,
  '\$.control.passed', json('false'), '\$.control.reason', 'loss_accounting not red')
  WHERE json_extract(config_json, '\$.control.name') = 'silent-drop'"
"$lab" db merge "$work/unsound.db" "$work"/shard_{1,2_bad,3}.db >"$work/merge-bad.log" 2>&1 ||
  { cat "$work/merge-bad.log"; fail "merge with shard 2's failed control"; }
set +e
"$lab" report smoke --db "$work/unsound.db" --check --html "$work/u.html" --junit "$work/u.xml" \
  >"$work/check-bad.log" 2>&1
rc=$?
set -e
[ $rc -eq 4 ] || { cat "$work/check-bad.log"; fail "report --check: exit $rc, want 4 (UNSOUND)"; }
grep -q "UNSOUND" "$work/u.html" || fail "the merged HTML does not say UNSOUND"
grep -q 'round 0 (shard 2/3) on mutant-silent-drop' "$work/u.xml" || fail "JUnit names no failed shard-2 control"
grep -q '<failure' "$work/u.xml" || fail "JUnit has no failure"
"$lab" history --db "$work/unsound.db" --campaign smoke >"$work/history-bad.txt" || true
grep -q "UNSOUND" "$work/history-bad.txt" || fail "history does not say UNSOUND: $(head -30 "$work/history-bad.txt")"

# Precedence (docs/ci.md): shard 1 merged with its first run infra (its board failed), then the
# shard re-run in place with --resume --retry-infra and merged again: the infra row turns green,
# its failed attempt kept in run_attempts.
i=$(sqlite3 "$work/shard_1.db" "SELECT MIN(idx) FROM runs WHERE replay_of IS NULL AND idx < 1000000000")
cp "$work/shard_1.db" "$work/shard_1_infra.db"
sqlite3 "$work/shard_1_infra.db" "UPDATE runs SET status = 'infra', infra_cause = 'board_died',
  stream_sha256 = NULL WHERE idx = $i AND replay_of IS NULL; DELETE FROM verdicts WHERE run_id IN
  (SELECT id FROM runs WHERE idx = $i)"
"$lab" db merge "$work/retry.db" "$work"/shard_{1_infra,2,3}.db >/dev/null 2>&1 || fail "merge with an infra run"
[ "$(sqlite3 "$work/retry.db" "SELECT status FROM runs WHERE idx = $i")" = infra ] || fail "run $i not infra"
"$lab" soak "$src/campaigns/smoke.json" --shard 1/3 --runs $runs --boards 2 --db "$work/shard_1_infra.db" \
  --resume smoke --retry-infra --report-dir "" >"$work/retry-soak.log" 2>&1 || {
  cat "$work/retry-soak.log"; fail "soak --resume --retry-infra of shard 1"; }
"$lab" db merge "$work/retry.db" "$work/shard_1_infra.db" >"$work/retry.log" 2>&1 || { cat "$work/retry.log"; fail "re-merge"; }
[ "$(sqlite3 "$work/retry.db" "SELECT status FROM runs WHERE idx = $i")" = green ] || fail "the re-run did not turn run $i green"
[ "$(sqlite3 "$work/retry.db" "SELECT COUNT(*) FROM run_attempts a JOIN runs r ON r.id = a.run_id WHERE r.idx = $i")" -ge 1 ] ||
  fail "the infra attempt of run $i was not kept"
"$lab" report smoke --db "$work/retry.db" --check >/dev/null || fail "report --check after the re-run merge"
# Two judged copies that disagree (another stream for that run): refused, exit 2, the output
# unchanged; --keep-differing keeps the output's and lists it.
cp "$work/shard_1.db" "$work/differs.db"
sqlite3 "$work/differs.db" "UPDATE runs SET stream_sha256 = '$(printf 'e%.0s' $(seq 64))' WHERE idx = $i"
dump() { sqlite3 "$1" .dump | grep -v '^PRAGMA'; }
dump "$work/retry.db" >"$work/retry.sql"
rc=0
"$lab" db merge "$work/retry.db" "$work/differs.db" >"$work/differs.log" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q -- '--keep-differing' "$work/differs.log" || { cat "$work/differs.log"; fail "differing merge: exit $rc"; }
dump "$work/retry.db" | cmp -s - "$work/retry.sql" || fail "a refused merge changed the output"
"$lab" db merge "$work/retry.db" "$work/differs.db" --keep-differing >"$work/differs.log" 2>&1 ||
  { cat "$work/differs.log"; fail "--keep-differing"; }
grep -q 'different result: campaign smoke' "$work/differs.log" || fail "--keep-differing lists nothing"
[ "$(sqlite3 "$work/retry.db" "SELECT stream_sha256 FROM runs WHERE idx = $i")" != "$(printf 'e%.0s' $(seq 64))" ] || fail "the output's copy not kept"

# Merging again (and a shard twice) changes nothing.
dump "$work/merged.db" >"$work/before.sql"
"$lab" db merge "$work/merged.db" "$work"/shard_{3,1,2,1}.db >"$work/merge2.log" 2>&1 ||
  { cat "$work/merge2.log"; fail "second merge failed"; }
grep -q "0 runs added" "$work/merge2.log" || fail "second merge added runs: $(cat "$work/merge2.log")"
dump "$work/merged.db" | cmp -s - "$work/before.sql" || fail "second merge changed the file"

# history, report and replay on the merged file.
"$lab" history --db "$work/merged.db" --campaign smoke >"$work/history.txt" ||
  fail "history on the merged file"
grep -q "$runs" "$work/history.txt" || fail "history does not show $runs runs: $(head -5 "$work/history.txt")"
"$lab" report smoke --db "$work/merged.db" --junit "$work/smoke.junit.xml" \
  --html "$work/smoke.html" --csv "$work/smoke.csv" >/dev/null || fail "report on the merged file"
grep -q "tests=\"$runs\"" "$work/smoke.junit.xml" || fail "JUnit report lacks $runs runs"
twin=$(sqlite3 "$work/merged.db" "SELECT id FROM runs WHERE json_extract(config_json, '$.twin_of') IS NOT NULL ORDER BY idx LIMIT 1")
"$lab" replay "$twin" --db "$work/merged.db" >"$work/replay.log" 2>&1 ||
  { cat "$work/replay.log"; fail "replay of twin run $twin on the merged file"; }
grep -q "bit-identical" "$work/replay.log" || fail "replay not bit-identical: $(cat "$work/replay.log")"

# A shard whose run 3 was drawn differently is refused, naming campaign, index and both files.
cp "$work/shard_2.db" "$work/bad.db"
sqlite3 "$work/bad.db" "UPDATE runs SET config_json = json_set(config_json, '\$.axes.mode', 'edited')
                        WHERE idx = 3"
dump "$work/merged.db" >"$work/before.sql"
set +e
err=$("$lab" db merge "$work/merged.db" "$work/bad.db" 2>&1 >/dev/null)
rc=$?
set -e
[ $rc -eq 2 ] || fail "conflicting merge: exit $rc, want 2"
for want in "campaign smoke" "index 3" "$work/bad.db" "$work/merged.db" "config_json differs"; do
  grep -qF "$want" <<<"$err" || fail "conflict message lacks '$want': $err"
done
dump "$work/merged.db" | cmp -s - "$work/before.sql" || fail "refused merge changed the output"
# The output may not be one of the inputs.
"$lab" db merge "$work/shard_1.db" "$work/shard_1.db" 2>/dev/null && fail "OUT == IN accepted"
echo "ok: 3 shards of smoke (--runs $runs) merged equal golden/smoke.tsv; every shard's controls kept, a failed one UNSOUND; an infra row turned green by a re-run; differing results refused; re-merge, history, report, replay, conflict"

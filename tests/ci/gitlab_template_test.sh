#!/usr/bin/env bash
# ci/gitlab-ci.yml works: the build job packages once (its lines are checked; the package is
# make test's, BUILD/test-package/ctte-lab.deb, fixture "package"), the soak and merge jobs
# install that package (CTTE_INSTALL, here unpacked into a scratch root put first on PATH) and run
# the installed ctte-lab; the shard job's script lines, run here with CI_NODE_INDEX=1..3 and
# CI_NODE_TOTAL=3 (a small run count, on the smoke spec without its controls: the subject is the
# template, not the controls), and the merge job's script lines give one campaign with every
# index, equal run for run to the same campaign run unsharded.
# Usage: gitlab_template_test.sh CTTE_LAB SOURCE_DIR BUILD_DIR
set -euo pipefail
lab=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
. "$src/tests/ci/ci_lib.sh"
yaml=$src/ci/gitlab-ci.yml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

job_script "$yaml" build >"$work/build.sh"
job_script "$yaml" soak >"$work/soak.sh"
job_script "$yaml" merge >"$work/merge.sh"
# Built once: the build job packages; no other job builds, both install the package first.
grep -q 'scripts/setup --soak' "$work/build.sh" || fail "build job does not run scripts/setup --soak"
grep -q 'cpack -G DEB' "$work/build.sh" || fail "build job does not run cpack"
grep -q 'package/ctte-lab.deb' "$work/build.sh" || fail "build job does not name package/ctte-lab.deb"
for job in soak merge; do
  job_script "$yaml" $job before_script >"$work/$job-before.sh"
  [ "$(cat "$work/$job-before.sh")" = '$CTTE_INSTALL' ] ||
    fail "$job job: before_script is not just \$CTTE_INSTALL: $(cat "$work/$job-before.sh")"
  grep -q 'scripts/setup' "$work/$job.sh" && fail "$job job builds (scripts/setup)"
done
grep -q 'ctte-lab.deb' <<<"$(grep 'CTTE_INSTALL:' "$yaml")" || fail "CTTE_INSTALL does not install package/ctte-lab.deb"
grep -q '^  CTTE_LAB: ctte-lab ' "$yaml" || fail "CTTE_LAB is not the installed ctte-lab"
grep -q -- '--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"' "$work/soak.sh" || fail "soak job lacks --shard"
grep -q 'db merge' "$work/merge.sh" || fail "merge job lacks db merge"
grep -q 'report' "$work/merge.sh" || fail "merge job lacks report"
grep -q 'report "$CTTE_CAMPAIGN" --db out/nightly.db --check' "$work/merge.sh" ||
  fail "merge job does not gate with report --check"
grep -q 'sqlite3' "$yaml" && fail "the template still reads the database with sqlite3"
[ "$(job_key "$yaml" soak parallel)" = 3 ] || fail "soak job: parallel is not 3"
job_key "$yaml" soak resource_group | grep -q 'CI_NODE_INDEX' || fail "no resource_group per pool"

# The job environment: the build job's artifact, the checkout's campaigns (smoke without its
# controls), the GitLab variables, a small campaign; the package installed as CTTE_INSTALL would.
deb=$build/test-package/ctte-lab.deb
[ -f "$deb" ] || fail "no $deb (ctest runs package_build first: fixture 'package')"
mkdir -p "$work/package" "$work/campaigns"
cp "$deb" "$work/package/ctte-lab.deb"
python3 - "$src/campaigns/smoke.json" "$work/campaigns/smoke.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.pop("controls", None)
json.dump(spec, open(sys.argv[2], "w"), indent=1)
PY
export CTTE_INSTALL="dpkg-deb -x ./package/ctte-lab.deb $work/root"
export PATH="$work/root/usr/bin:$PATH"
export CTTE_LAB=ctte-lab CTTE_SPEC=campaigns/smoke.json CTTE_CAMPAIGN=smoke CTTE_BOARDS=1
export CTTE_LIMIT="--runs 12" CI_PIPELINE_CREATED_AT=2026-12-01T01:00:00Z CI_NODE_TOTAL=3
for i in 1 2 3; do
  (cd "$work" && CI_NODE_INDEX=$i bash -e "$work/soak-before.sh" && CI_NODE_INDEX=$i bash -e "$work/soak.sh") >"$work/soak-$i.log" 2>&1 ||
    { cat "$work/soak-$i.log"; fail "shard $i/3 job failed"; }
done
[ "$(command -v ctte-lab)" = "$work/root/usr/bin/ctte-lab" ] || fail "the jobs did not run the installed ctte-lab"
(cd "$work" && bash -e "$work/merge-before.sh" && bash -e "$work/merge.sh") >"$work/merge.log" 2>&1 ||
  { cat "$work/merge.log"; fail "merge job failed"; }

# Each shard ran its own pairs; the merge holds all 12 in one campaign row.
[ "$(sqlite3 "$work/out/shards/shard-2.db" "SELECT group_concat(idx) FROM runs WHERE json_extract(config_json, '$.control') IS NULL")" = "2,3,8,9" ] ||
  fail "shard 2 ran $(sqlite3 "$work/out/shards/shard-2.db" "SELECT group_concat(idx) FROM runs WHERE json_extract(config_json, '$.control') IS NULL")"
[ "$(sqlite3 "$work/out/nightly.db" "SELECT COUNT(*) FROM campaigns")" = 1 ] ||
  fail "merged db has more than one campaign row"
for f in nightly.html nightly.junit.xml nightly.csv; do
  [ -s "$work/out/reports/$f" ] || fail "merge job wrote no out/reports/$f"
done
grep -q 'tests="12"' "$work/out/reports/nightly.junit.xml" || fail "JUnit report lacks 12 runs"

# The same campaign unsharded (same seed, same runs) gives the same runs.
"$lab" soak "$work/campaigns/smoke.json" --seed 20261201 --runs 12 --boards 2 \
  --db "$work/unsharded.db" --report-dir "" >"$work/unsharded.log" 2>&1 ||
  { cat "$work/unsharded.log"; fail "unsharded soak failed"; }
diff <(runs_tsv "$work/unsharded.db") <(runs_tsv "$work/out/nightly.db") >/dev/null ||
  fail "merged shards differ from the unsharded campaign"
# The gate: a campaign whose every draw is invalid (a 64-byte ring wraps) fails the merge job at
# `report --check` (exit 3), after the reports were written.
bad=$work/invalid
mkdir -p "$bad/package" "$bad/campaigns" "$bad/out/shards"
cp "$deb" "$bad/package/ctte-lab.deb"
python3 - "$work/campaigns/smoke.json" "$bad/campaigns/smoke.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["capture"] = {"ring_bytes": 64}
json.dump(spec, open(sys.argv[2], "w"), indent=1)
PY
rc=0
(cd "$bad" && ctte-lab soak campaigns/smoke.json --runs 4 --boards 1 --db out/shards/shard-1.db \
   --report-dir "") >"$bad/soak.log" 2>&1 || rc=$?
[ "$rc" = 3 ] || { cat "$bad/soak.log"; fail "the invalid-only shard exited $rc, not 3"; }
rc=0
(cd "$bad" && bash -e "$work/merge-before.sh" && bash -e "$work/merge.sh") >"$bad/merge.log" 2>&1 || rc=$?
[ "$rc" = 3 ] || { cat "$bad/merge.log"; fail "the merge job passed (or exited $rc) on a campaign of only invalid draws"; }
grep -q 'check: invalid (exit 3)' "$bad/merge.log" || { cat "$bad/merge.log"; fail "the gate did not say invalid"; }
[ -s "$bad/out/reports/nightly.html" ] || fail "no report before the failing gate"
echo "ok: gitlab template: 3 shards of 12 runs merged equal the unsharded campaign; an invalid-only campaign fails the gate"

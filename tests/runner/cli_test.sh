#!/usr/bin/env bash
# End-to-end checks of `ctte-lab campaign` and `ctte-lab history` (run by ctest as runner_cli).
# Usage: cli_test.sh CTTE_LAB SOURCE_DIR
set -euo pipefail
lab=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# draw: identical output twice and from another working directory, and equal to the golden file.
a=$(cd "$src" && "$lab" campaign draw campaigns/smoke.json --count 5 --json)
b=$(cd "$src" && "$lab" campaign draw campaigns/smoke.json --count 5 --json)
c=$(cd "$tmp" && "$lab" campaign draw "$src/campaigns/smoke.json" --count 5 --json)
[ "$a" = "$b" ] || fail "draw output differs between two runs"
[ "$a" = "$c" ] || fail "draw output differs with the working directory"
g=$("$lab" campaign draw "$src/campaigns/smoke.json" --count 12 --json)
[ "$g" = "$(cat "$src/tests/runner/golden/smoke_draws.json")" ] || fail "draw --json != golden"

# check: ok specs exit 0; a broken one exits 2 and names the JSON path.
"$lab" campaign check "$src/campaigns/smoke.json" > /dev/null || fail "smoke.json rejected"
"$lab" campaign check "$src/campaigns/nightly.json" > /dev/null || fail "nightly.json rejected"
printf '{"name":"x","seed":1,"runs":2,"images":["ntrace-slim"],"axes":{"mode":["htm","hmt"]}}' \
  > "$tmp/bad.json"
set +e
err=$("$lab" campaign check "$tmp/bad.json" 2>&1 >/dev/null)
rc=$?
set -e
[ $rc -eq 2 ] || fail "broken spec: exit $rc, want 2"
grep -q '\$\.axes\.mode\[1\]: unknown axis value "hmt"' <<<"$err" || fail "no JSON path in: $err"

# Issue 11: every numeric flag is range-checked at the parser with the flag named (exit 2, at
# once: `--runs -1` used to read as 2^64-1 and spin; `--budget 3000000h` overflowed the deadline).
expect_usage() {  # expect_usage 'TEXT' ARGS...: exit 2 within 10 s, stderr contains TEXT
  local want=$1; shift
  set +e
  local e
  e=$(cd "$tmp" && timeout 10 "$lab" "$@" 2>&1 >/dev/null)
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$*: exit $rc, want 2 ($e)"
  grep -qF -- "$want" <<<"$e" || fail "$*: '$want' not in: $e"
}
smoke=$src/campaigns/smoke.json
expect_usage "--runs: '-1' is not an integer in 1..1000000000" soak "$smoke" --runs -1 --db "$tmp/n.db"
expect_usage "--runs: '0'" soak "$smoke" --runs 0 --db "$tmp/n.db"
expect_usage "--runs: '99999999999999999999999'" soak "$smoke" --runs 99999999999999999999999
expect_usage "--budget: malformed duration ''" soak "$smoke" --budget '' --db "$tmp/n.db"
expect_usage "--budget: duration '3000000h' is longer than 30 days" soak "$smoke" --budget 3000000h
expect_usage "--boards: '-1'" soak "$smoke" --boards -1
expect_usage "--count: '-1' is not an integer in 1..10000000" campaign draw "$smoke" --count -1
expect_usage "--count: '0'" campaign draw "$smoke" --count 0
expect_usage "--start: '-1'" campaign draw "$smoke" --count 1 --start -1
expect_usage "--count: '-1'" campaign plan "$smoke" --count -1 --db "$tmp/n.db"
expect_usage "--fabric-mhz: 'nan' is not a number" run --image x --workload y --fabric-mhz nan
expect_usage "--fabric-mhz: 'inf'" run --image x --workload y --fabric-mhz inf
expect_usage "--fabric-mhz: '-1'" run --image x --workload y --fabric-mhz -1
expect_usage "--sink-mhz: 'nan'" capture --image x --workload y --out "$tmp/o" --sink-mhz nan
expect_usage "--ipc: 'nan'" run --image x --workload y --ipc nan
expect_usage "--ring-bytes: '-1'" run --image x --workload y --ring-bytes -1
expect_usage "--max-instructions: '-1'" run --image x --workload y --max-instructions -1
expect_usage "--stop: '-1'" run --image x --workload y --stop -1
[ ! -e "$tmp/n.db" ] || fail "a refused soak created its database"

# Issue 11: output paths are checked before any run: an explicit --db or --report-dir needs an
# existing parent folder (only the default out/ is created), and the report folder must be
# writable.
expect_usage "the folder $tmp/nowhere does not exist" soak "$smoke" --db "$tmp/nowhere/x.db"
expect_usage "the folder $tmp/nowhere does not exist" soak "$smoke" --db "$tmp/r.db" \
  --report-dir "$tmp/nowhere/reports"
: > "$tmp/afile"
expect_usage "--report-dir $tmp/afile: not a folder" soak "$smoke" --db "$tmp/r.db" \
  --report-dir "$tmp/afile"
expect_usage "--db $tmp: not a regular file" soak "$smoke" --db "$tmp"
mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
  expect_usage "--report-dir $tmp/ro: not writable" soak "$smoke" --db "$tmp/r.db" \
    --report-dir "$tmp/ro"
fi
[ ! -e "$tmp/r.db" ] || fail "a refused soak created its database"
[ ! -e "$tmp/nowhere" ] || fail "a refused soak created a missing parent folder"

# Issue 11: nonsense numbers in a spec are errors with their JSON path, never a crash.
printf '{"name":"x","seed":1,"budget":"3000000h","images":["ntrace-slim"],"clocks":{"fabric_mhz":-1,"sink_mhz":0},"axes":{"fabric_mhz":[-1,1.5]}}' \
  > "$tmp/nonsense.json"
expect_usage '$.budget: budget "3000000h" out of range (at most 30 days' campaign check "$tmp/nonsense.json"
expect_usage '$.clocks.fabric_mhz: non-positive clock -1' campaign check "$tmp/nonsense.json"
expect_usage '$.clocks.sink_mhz: non-positive clock 0' campaign check "$tmp/nonsense.json"
expect_usage '$.axes.fabric_mhz[0]' campaign check "$tmp/nonsense.json"
expect_usage '$.axes.fabric_mhz[1]' campaign check "$tmp/nonsense.json"
printf '{"name":"x","seed":1,"runs":1e400,"images":["ntrace-slim"]}' > "$tmp/huge.json"
expect_usage '$.runs: number 1e400 is out of range' campaign check "$tmp/huge.json"
expect_usage '$.runs: number 1e400 is out of range' soak "$tmp/huge.json" --db "$tmp/n.db"

# Issue 11: a spec with a million errors prints the first 50 and a count of the rest.
python3 -c 'import json; print(json.dumps({"name":"x","seed":1,"runs":1,"images":["ntrace-slim"],
  **{"k%d" % i: 0 for i in range(100000)}}))' > "$tmp/many.json"
set +e
err=$("$lab" campaign check "$tmp/many.json" 2>&1 >/dev/null)
set -e
[ "$(grep -c 'unknown key' <<<"$err")" -eq 50 ] || fail "not 50 errors printed"
grep -q '\.\.\. and 99950 more error(s)' <<<"$err" || fail "no '... and N more': $(tail -2 <<<"$err")"

# Issue 11: `campaign check` runs the soak's preparation: runs that would be infra by design
# (unknown image, clock above the image's fmax, clock outside the PLL's range) are named, exit 2.
printf '{"name":"x","seed":1,"runs":200,"images":["ntrace-slim","ntrace-nope"],"clocks":{"sink_mhz":1},"axes":{"fabric_mhz":[90,500],"overflow_regime":["none","saturating"]}}' \
  > "$tmp/infra.json"
expect_usage 'infra by design (prepare): image ntrace-nope' campaign check "$tmp/infra.json"
expect_usage 'infra by design (closure_gate): fabric_mhz 500 on image ntrace-slim' \
  campaign check "$tmp/infra.json"
expect_usage 'infra by design (clock): overflow_regime saturating' campaign check "$tmp/infra.json"
expect_usage '3 value(s) would make runs infra' campaign check "$tmp/infra.json"
expect_usage 'infra by design (prepare): image ntrace-slim' campaign check "$smoke" \
  --image-dir "$tmp/no-such-dir"

# plan + history: the default database goes to out/ctte.db under the working directory.
(cd "$tmp" && "$lab" campaign plan "$src/campaigns/smoke.json" > /dev/null)
[ -f "$tmp/out/ctte.db" ] || fail "plan did not create out/ctte.db"
(cd "$tmp" && "$lab" campaign plan "$src/campaigns/smoke.json" | grep -q ' 0 newly recorded') \
  || fail "planning twice added runs"
hist=$(cd "$tmp" && "$lab" history --json --campaign smoke)
grep -q '"planned": 240' <<<"$hist" || fail "history does not show 240 planned runs: $hist"
set +e
(cd "$tmp" && "$lab" history --db "$tmp/none.db" > /dev/null 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "history on a missing database: exit $rc, want 2"
# plan stores what soak stores (#29: plan kept the raw text, soak the text with each user
# workload pinned by SHA-256, so one spec with $.workloads made two campaign rows): the row's
# spec carries the ELF's digest, and planning again finds the same row.
elf=$(dirname "$lab")/../workloads/calls.elf
if [ -f "$elf" ] && command -v sqlite3 >/dev/null; then
  cp "$elf" "$tmp/mine.elf"
  printf '{"name":"mine","seed":5,"runs":3,"images":["ntrace-slim"],"workloads":{"mine":"mine.elf"},"axes":{"workload":["mine"]}}' \
    > "$tmp/mine.json"
  "$lab" campaign plan "$tmp/mine.json" --db "$tmp/mine.db" > /dev/null
  "$lab" campaign plan "$tmp/mine.json" --db "$tmp/mine.db" > /dev/null
  sha=$(sha256sum "$tmp/mine.elf" | cut -d' ' -f1)
  [ "$(sqlite3 "$tmp/mine.db" 'SELECT COUNT(*) FROM campaigns')" = 1 ] || fail "two campaign rows"
  sqlite3 "$tmp/mine.db" 'SELECT spec_json FROM campaigns' | grep -q "$sha" \
    || fail "plan did not pin the user workload's digest: $(sqlite3 "$tmp/mine.db" 'SELECT spec_json FROM campaigns')"
else
  fail "no $elf or no sqlite3 (build the workloads; scripts/setup installs sqlite3)"
fi
echo "cli ok"

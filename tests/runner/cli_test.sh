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
echo "cli ok"

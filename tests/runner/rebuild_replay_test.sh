#!/usr/bin/env bash
# Issue #16: a run stored, the build tree deleted and rebuilt (new build ids): its replay is
# bit-identical from the artifact store. The rebuilt image is real: ntrace-slim verilated and
# compiled a second time under another build id, at build time (target ctte_image_slim_rebuilt;
# before #25 this test configured and compiled it itself); its manifest must name another build
# id and another SHA-256 than the image the run ran, the old image folder is deleted, and
#   - replay with --artifacts none is refused, naming both digests (the rebuilt tree cannot
#     reproduce the run: the test would pass vacuously if it could);
#   - replay from the rebuilt tree takes the run's image from the artifact store and its
#     stream is bit-identical (the replayed stream's SHA-256 equals the stored one).
# Usage: rebuild_replay_test.sh CTTE_LAB SOURCE_DIR BINARY_DIR
set -euo pipefail
lab=$1 src=$2 bin=$3
work=$(mktemp -d "$bin/rebuild-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

mkdir -p "$work/images"
cp "$bin/images/ntrace-slim.so" "$bin/images/ntrace-slim.manifest.json" "$work/images/"
cat >"$work/spec.json" <<'EOF'
{
  "name": "rebuild-replay",
  "seed": "0x00000000000016ab",
  "runs": 2,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 2000,
  "axes": {"mode": ["htm", "btm"], "workload": ["loop"]}
}
EOF
"$lab" soak "$work/spec.json" --db "$work/lab.db" --image-dir "$work/images" --report-dir '' \
  --store-streams all >"$work/soak.log" 2>&1 || { cat "$work/soak.log"; fail "soak"; }
old_sha=$(field "$work/images/ntrace-slim.manifest.json" sha256)
old_id=$(field "$work/images/ntrace-slim.manifest.json" build_id)
ls -R "$work/lab.db.artifacts" | grep -q "$old_sha" || fail "the artifact store lacks $old_sha"

# The build tree deleted and rebuilt: its images are gone; the rebuilt tree's ntrace-slim is the
# same design built again under a new build id (rtl/CMakeLists.txt builds it at build time into
# BUILD/tests/rebuilt-images as target ctte_image_slim_rebuilt, as a fresh configure would).
rm -rf "$work/images"
rebuilt="$bin/tests/rebuilt-images"
[ -f "$rebuilt/ntrace-slim.manifest.json" ] ||
  fail "no $rebuilt/ntrace-slim.manifest.json (build the target ctte_image_slim_rebuilt)"
mkdir -p "$work/build"
cp -r "$rebuilt" "$work/build/images"
new="$work/build/images/ntrace-slim.manifest.json"
new_sha=$(field "$new" sha256)
new_id=$(field "$new" build_id)
echo "stored run's image: build id $old_id sha256 $old_sha"
echo "rebuilt image:      build id $new_id sha256 $new_sha"
[ "$new_id" != "$old_id" ] || fail "the rebuild kept build id $old_id"
[ "$new_sha" != "$old_sha" ] || fail "the rebuilt image has the same SHA-256"

ids=$(python3 - "$work/lab.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(" ".join(str(r[0]) for r in db.execute(
    "SELECT id FROM runs WHERE replay_of IS NULL AND status = 'green' ORDER BY id")))
PY
)
[ -n "$ids" ] || fail "no green run stored"
for id in $ids; do
  set +e
  refused=$("$lab" replay "$id" --db "$work/lab.db" --image-dir "$work/build/images" \
    --board "$(dirname "$lab")/ctte-board" --artifacts none 2>&1)
  rc=$?
  set -e
  [ "$rc" = 2 ] || { echo "$refused"; fail "replay $id without the store exited $rc, not 2"; }
  grep -q "$old_sha" <<<"$refused" && grep -q "$new_sha" <<<"$refused" ||
    { echo "$refused"; fail "the refusal does not name both digests"; }
  out=$("$lab" replay "$id" --db "$work/lab.db" --image-dir "$work/build/images" \
    --board "$(dirname "$lab")/ctte-board" 2>&1) || { echo "$out"; fail "replay $id"; }
  grep -q "stream: bit-identical" <<<"$out" || { echo "$out"; fail "replay $id not bit-identical"; }
  grep -q "image from the artifact store" <<<"$out" ||
    { echo "$out"; fail "replay $id did not take the image from the artifact store"; }
  echo "run $id: replay bit-identical, image from the artifact store"
done
echo "PASS"

#!/usr/bin/env bash
# No behaviour change: the smoke campaign, 200 runs of the frozen 2026-12-01 nightly spec
# (specs/nightly-2026-12-01.json) and 200 runs of nightly crossing the features axis (the frozen
# specs/nightly-features-2026-12-01.json, from before nightly's 8 MiB capture ring)
# give, index for index, the same seed, config, stream SHA-256 and status as the recordings in
# golden/ (scripts/behaviour-record).
# Usage: behaviour_test.sh SOURCE_DIR BUILD_DIR [NAME...]   (default: all three recordings;
# SMOKE_DB=file takes the smoke recording from an existing database, scripts/behaviour-record)
set -euo pipefail
src=$1 build=$2
shift 2
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(smoke nightly200 nightly-features200)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
BUILD_DIR=$build "$src/scripts/behaviour-record" "$out" "${names[@]}"
fail=0
for f in "${names[@]}"; do
  if ! cmp -s "$src/tests/behaviour/golden/$f.tsv" "$out/$f.tsv"; then
    fail=1
    echo "FAIL: $f differs from tests/behaviour/golden/$f.tsv (index seed config stream status):"
    diff <(cut -f1,2,4,5 "$src/tests/behaviour/golden/$f.tsv") <(cut -f1,2,4,5 "$out/$f.tsv") \
      | head -20 || true
    diff "$src/tests/behaviour/golden/$f.tsv" "$out/$f.tsv" | head -4 | cut -c1-400 || true
  else
    echo "ok: $f: $(wc -l <"$out/$f.tsv") runs identical"
  fi
done
exit $fail

#!/usr/bin/env bash
# package_smoke: the Debian package works without the build tree (#25). Unpacks
# BUILD/test-package/ctte-lab.deb (package_build) into a scratch root as dpkg -i would lay it out,
# checks its metadata (version, dependencies on Debian runtime packages only), then runs
#   ROOT/usr/bin/ctte-lab soak ROOT/usr/share/ctte-lab/campaigns/smoke.json
# which must find its board, images and workloads under ROOT (not in the build tree: the
# installed ctte-lab is shown to look there by a campaign check that fails when an installed image
# is removed) and end green with every control passed. Its database is kept as
# BUILD/test-fixtures/smoke.db, the smoke fixture (behaviour_smoke).
# Usage: package_smoke_test.sh SOURCE_DIR BUILD_DIR PACKAGE_VERSION
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2") version=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
deb=$build/test-package/ctte-lab.deb
[ -f "$deb" ] || fail "no $deb (ctest runs package_build first: fixture 'package')"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
dpkg-deb -x "$deb" "$root"

# Metadata: dependencies computed from the binaries, all Debian runtime packages (no -dev).
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libsqlite3 libssl libspdlog libusb-1.0 libelf libc6 libstdc++6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
grep -q -- '-dev' <<<"$depends" && fail "Depends names a -dev package: $depends"

lab=$root/usr/bin/ctte-lab
for f in usr/bin/ctte-lab usr/bin/ctte-board usr/share/ctte-lab/campaigns/smoke.json \
         usr/lib/ctte-lab/images/ntrace-slim.so usr/lib/ctte-lab/images/ntrace-slim.manifest.json \
         usr/lib/ctte-lab/images/mutant-silent-drop.so usr/lib/ctte-lab/workloads/loop.elf \
         usr/share/doc/ctte-lab/README.md; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done
"$lab" --version | tee "$work/version.txt"
grep -q "package ctte-lab $version" "$work/version.txt" || fail "--version does not name $version"

# The installed ctte-lab looks in ROOT/usr/lib/ctte-lab: without an installed image the campaign
# check fails and names the installed path.
cp -a "$root" "$work/broken"
rm "$work/broken/usr/lib/ctte-lab/images/ntrace-slim.manifest.json"
if "$work/broken/usr/bin/ctte-lab" campaign check "$work/broken/usr/share/ctte-lab/campaigns/smoke.json" \
     >"$work/check.log" 2>&1; then
  cat "$work/check.log"; fail "campaign check passed without the installed ntrace-slim manifest"
fi
grep -q "$work/broken/usr/lib/ctte-lab/images" "$work/check.log" ||
  { cat "$work/check.log"; fail "the refusal does not name the installed image folder"; }
rm -rf "$work/broken"

# The smoke campaign from the installed tree, green with its controls.
db=$work/smoke.db
set +e
"$lab" soak "$root/usr/share/ctte-lab/campaigns/smoke.json" --boards 2 --db "$db" \
  --report-dir "$work/reports" >"$work/soak.log" 2>&1
rc=$?
set -e
[ $rc -eq 0 ] || { tail -n 40 "$work/soak.log"; fail "installed smoke soak exited $rc, want 0"; }
grep -E '^controls: ([0-9]+)/\1 passed' "$work/soak.log" ||
  { grep -n "controls" "$work/soak.log"; fail "not every control passed"; }
grep -q "campaign: 240 runs: 240 green" "$work/soak.log" ||
  { grep -n "campaign:" "$work/soak.log"; fail "the smoke campaign is not 240 green runs"; }
mkdir -p "$build/test-fixtures"
cp "$db" "$build/test-fixtures/smoke.db.tmp"
mv "$build/test-fixtures/smoke.db.tmp" "$build/test-fixtures/smoke.db"
echo "ok: installed package ran smoke green with its controls; fixture $build/test-fixtures/smoke.db"

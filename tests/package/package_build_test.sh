#!/usr/bin/env bash
# package_build: `cpack` makes the Debian package from the build tree (what `make package` does),
# into BUILD/test-package/, for package_smoke and the CI template test.
# Usage: package_build_test.sh BUILD_DIR PACKAGE_VERSION
set -euo pipefail
build=$(realpath "$1") version=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$build/test-package
rm -rf "$out"
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out") >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; fail "cpack"; }
deb=$(ls "$out"/ctte-lab_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$out/cpack.log"; fail "cpack wrote no ctte-lab_*.deb"; }
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
  fail "package version $(dpkg-deb -f "$deb" Version), want $version"
ln -sf "$(basename "$deb")" "$out/ctte-lab.deb"
echo "ok: $deb ($(du -h "$deb" | cut -f1)), version $version"

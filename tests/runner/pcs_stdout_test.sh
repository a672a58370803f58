#!/usr/bin/env bash
# `--pcs -` (docs/inputs-and-outputs.md "Standard output"): decode and iss write the PCs to
# standard output byte for byte as --pcs FILE writes them, the summary goes to stderr, a reader
# that closes the pipe early is a quiet stop (exit 0, no message), --json (and decode's
# --messages) with --pcs - is a usage error, and bad destinations stay clear errors.
# Usage: pcs_stdout_test.sh CTTE_LAB ELF   (run by ctest as pcs_stdout_cli)
set -euo pipefail
lab=$1
elf=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$elf" ] || fail "workload not built: $elf (build ctte_workloads)"
cd "$tmp"

"$lab" encode "$elf" --max-instructions 200000 --interrupt-every 997 --out big.bin > /dev/null

# Byte-identical to --pcs FILE; the summary moves to stderr and stays the same text.
"$lab" decode big.bin --elf "$elf" --pcs file.txt > file.out 2> file.err
"$lab" decode big.bin --elf "$elf" --pcs - > dash.txt 2> dash.err
cmp file.txt dash.txt || fail "decode --pcs - differs from --pcs FILE"
[ "$(wc -l < dash.txt)" -ge 100000 ] || fail "decode wrote $(wc -l < dash.txt) PCs, want >= 100000"
[ ! -e ./- ] || fail "decode --pcs - made a file named '-'"
[ -s file.out ] && [ ! -s file.err ] || fail "decode --pcs FILE: summary not on stdout alone"
cmp file.out dash.err || fail "decode --pcs -: stderr is not the summary: $(cat dash.err)"
grep -q '^instructions ' dash.err || fail "no statistics line on stderr: $(cat dash.err)"

"$lab" iss "$elf" --max-instructions 200000 --pcs iss-file.txt > iss-file.out 2> iss-file.err
"$lab" iss "$elf" --max-instructions 200000 --pcs - > iss-dash.txt 2> iss-dash.err
cmp iss-file.txt iss-dash.txt || fail "iss --pcs - differs from --pcs FILE"
[ "$(wc -l < iss-dash.txt)" -eq 200000 ] || fail "iss wrote $(wc -l < iss-dash.txt) PCs"
cmp iss-file.out iss-dash.err || fail "iss --pcs -: stderr is not the summary"
[ ! -s iss-file.err ] || fail "iss --pcs FILE wrote to stderr: $(cat iss-file.err)"

# Through a pipe to `cat`, and to readers that close early: exit 0, nothing on stderr, and
# the lines they saw are the file's first lines.
"$lab" decode big.bin --elf "$elf" --pcs - 2>/dev/null | cat > piped.txt
cmp file.txt piped.txt || fail "decode --pcs - | cat differs from --pcs FILE"
check_early_close() {  # NAME COMMAND... : runs COMMAND | head -n 3
  local name=$1
  shift
  set +e
  "$@" --pcs - 2> "$name.err" | head -n 3 > "$name.head"
  local rc=("${PIPESTATUS[@]}")
  set -e
  [ "${rc[0]}" -eq 0 ] || fail "$name | head: exit ${rc[0]}, want 0: $(cat "$name.err")"
  [ ! -s "$name.err" ] || fail "$name | head printed: $(cat "$name.err")"
}
check_early_close decode "$lab" decode big.bin --elf "$elf"
cmp decode.head <(head -n 3 file.txt) || fail "decode | head saw other lines"
check_early_close iss "$lab" iss "$elf" --max-instructions 200000
cmp iss.head <(head -n 3 iss-file.txt) || fail "iss | head saw other lines"
set +e
"$lab" decode big.bin --elf "$elf" --pcs - 2>/dev/null | grep -q "^$(sed -n 5p file.txt)\$"
rc=("${PIPESTATUS[@]}")
set -e
[ "${rc[*]}" = "0 0" ] || fail "decode | grep -q: exit ${rc[*]}, want 0 0"

# --json (and decode's --messages) also want standard output: refused before any work.
expect_usage() {  # NEEDLE COMMAND... : exit 2, nothing on stdout, NEEDLE in stderr
  local needle=$1
  shift
  set +e
  "$@" > usage.out 2> usage.err
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$*: exit $rc, want 2"
  [ ! -s usage.out ] || fail "$*: wrote to stdout: $(head -c 200 usage.out)"
  grep -q -- "$needle" usage.err || fail "$*: no '$needle' in: $(cat usage.err)"
}
expect_usage "where --json prints too" "$lab" decode big.bin --elf "$elf" --pcs - --json
expect_usage "where --messages prints too" "$lab" decode big.bin --elf "$elf" --pcs - --messages
expect_usage "where --json prints too" "$lab" iss "$elf" --pcs - --json
# --json with a file still works and prints JSON on stdout.
"$lab" decode big.bin --elf "$elf" --pcs j.txt --json | grep -q '"instructions"' ||
  fail "decode --pcs FILE --json lost its JSON"

# Bad destinations: a device path is still refused, a missing parent named, a closed or full
# standard output is a clear error (exit 2), never a crash.
expect_usage "is a character device; refusing to replace it" \
  "$lab" decode big.bin --elf "$elf" --pcs /dev/null
expect_usage "parent folder nodir does not exist" "$lab" iss "$elf" --pcs nodir/p.txt
set +e
"$lab" decode big.bin --elf "$elf" --pcs - >&- 2> closed.err
rc=$?
set -e
[ $rc -eq 2 ] || fail "decode --pcs - with stdout closed: exit $rc, want 2"
grep -q -- "--pcs: .*standard output is closed" closed.err || fail "closed: $(cat closed.err)"
set +e
"$lab" iss "$elf" --max-instructions 200000 --pcs - > /dev/full 2> full.err
rc=$?
set -e
[ $rc -eq 2 ] || fail "iss --pcs - > /dev/full: exit $rc, want 2"
grep -q -- "--pcs: .*standard output: write failed: no space left on device" full.err ||
  fail "full: $(cat full.err)"
echo "pcs_stdout_cli: ok"

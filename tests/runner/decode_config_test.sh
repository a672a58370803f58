#!/usr/bin/env bash
# `ctte-lab decode` and the configuration message (docs/encoder-behaviour.md section 11.9): it
# configures itself from the stream, names a disagreeing --features (exit 1), and without a
# configuration message a stream decoded with the wrong features exits 1 with decode errors.
# Usage: decode_config_test.sh CTTE_LAB FARCALLS_ELF   (run by ctest as decode_config_cli)
set -euo pipefail
lab=$1
elf=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$elf" ] || fail "workload not built: $elf (build ctte_workloads)"

"$lab" encode "$elf" --max-instructions 50000 --interrupt-every 997 --mode btm \
  --features implicit-return:8,sequential-jump,config-message --out "$tmp/cfg.bin"
"$lab" encode "$elf" --max-instructions 50000 --interrupt-every 997 --mode btm \
  --features implicit-return:8,sequential-jump --out "$tmp/plain.bin"

# From the stream alone.
out=$("$lab" decode "$tmp/cfg.bin" --elf "$elf" --json) || fail "self-configured decode failed"
grep -q '"configured_by": "stream"' <<<"$out" || fail "not configured by the stream: $out"
grep -q '"decode_errors": 0' <<<"$out" || fail "decode errors: $out"
grep -q '"features": "implicit-return:8,sequential-jump,config-message"' <<<"$out" ||
  fail "features not from the stream: $out"
# Agreeing --features: exit 0, no complaint.
err=$("$lab" decode "$tmp/cfg.bin" --elf "$elf" \
        --features implicit-return:8,sequential-jump,config-message 2>&1 >/dev/null) ||
  fail "agreeing --features: nonzero exit"
[ -z "$err" ] || fail "agreeing --features complained: $err"
# Disagreeing --features: named, exit 1, decoded with the stream's features.
set +e
err=$("$lab" decode "$tmp/cfg.bin" --elf "$elf" --features none 2>&1 >/dev/null)
rc=$?
set -e
[ $rc -eq 1 ] || fail "disagreeing --features: exit $rc, want 1"
grep -q 'says implicit-return:8,sequential-jump,config-message, --features says none' <<<"$err" ||
  fail "mismatch not named: $err"
# No configuration message: the wrong features give decode errors (exit 1), the right ones 0.
set +e
"$lab" decode "$tmp/plain.bin" --elf "$elf" > "$tmp/wrong.txt" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "plain stream without --features: exit $rc, want 1"
grep -q "decode error" "$tmp/wrong.txt" || fail "no decode error listed: $(cat "$tmp/wrong.txt")"
"$lab" decode "$tmp/plain.bin" --elf "$elf" --features implicit-return:8,sequential-jump \
  > /dev/null || fail "plain stream with its features failed"
# The repeat features travel in the configuration message too (ENABLED bits 4, 5): spin's BTM
# stream has RepeatBranch messages (without the message and --features it is a decode error).
spin=$(dirname "$elf")/spin.elf
[ -f "$spin" ] || fail "workload not built: $spin (build ctte_workloads)"
"$lab" encode "$spin" --max-instructions 50000 --mode btm \
  --features repeat-branch,config-message --out "$tmp/rep.bin" > /dev/null
"$lab" encode "$spin" --max-instructions 50000 --mode btm \
  --features repeat-branch --out "$tmp/rep-plain.bin" > /dev/null
out=$("$lab" decode "$tmp/rep.bin" --elf "$spin" --json) || fail "repeat-branch stream: $out"
grep -q '"features": "repeat-branch,config-message"' <<<"$out" ||
  fail "repeat features not from the stream: $out"
set +e
"$lab" decode "$tmp/rep-plain.bin" --elf "$spin" > "$tmp/rep-wrong.txt" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "repeat-branch stream without its features: exit $rc, want 1"
echo "decode_config_cli: ok"

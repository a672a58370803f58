#!/usr/bin/env bash
# bench/pcs_stdout_bench.sh: what writing the PC text costs against decoding (and running) alone,
# by destination, on the 14.1 M-instruction stream of docs/bench.md "PC text" (issue #17):
#
#   decode        ctte-lab decode big.bin --elf big.elf                       (the reference)
#   null          ... --pcs - >/dev/null          (text made and written, not stored)
#   pipe          ... --pcs - | cat >/dev/null    (a pipe; the time includes cat's)
#   file          ... --pcs FILE                  (stored: the kernel copies 155 MB to the page cache)
#
# and the same four for `ctte-lab iss big.elf [--pcs ...]`. Each round runs the eight in turn
# (whole processes under bash's `time`: user, sys, wall); it prints each one's medians and, per
# round, the ratio to its reference (decode, or iss without --pcs), median over the rounds.
# The text costs less CPU than decoding when a ratio is below 2.
#
# Usage: bench/pcs_stdout_bench.sh [ROUNDS]   (default 7; BUILD_DIR, WORK as nexrv_pcs_bench.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "pcs_stdout_bench: ROUNDS '$rounds' is not a count" >&2; exit 2; }
build=${BUILD_DIR:-build}
lab=$(realpath "$build/bin/ctte-lab" 2>/dev/null || true)
[ -x "$lab" ] || { echo "pcs_stdout_bench: $build/bin/ctte-lab is not built" >&2; exit 2; }
if [ -z "${WORK:-}" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/pcs-stdout-bench.XXXXXX"); trap 'rm -rf "$work"' EXIT
else
  work=$WORK; mkdir -p "$work"
fi
cd "$work"
"$lab" workload gen --seed 17 --max-dynamic 17000000 --out big.elf >/dev/null
"$lab" encode big.elf --out big.bin >/dev/null
"$lab" decode big.bin --elf big.elf --pcs file.pcs >/dev/null
"$lab" decode big.bin --elf big.elf --pcs - 2>/dev/null | cmp - file.pcs ||
  { echo "pcs_stdout_bench: decode --pcs - and --pcs FILE differ" >&2; exit 1; }
"$lab" iss big.elf --pcs - 2>/dev/null | cmp - file.pcs ||
  { echo "pcs_stdout_bench: iss --pcs - and decode --pcs differ" >&2; exit 1; }
echo "stream: $(stat -c %s big.bin) bytes, $(wc -l <file.pcs) instructions, $(stat -c %s file.pcs) bytes of PC text"

export LAB=$lab
declare -A cmd=(
  [decode]='"$LAB" decode big.bin --elf big.elf >/dev/null'
  [decode_null]='"$LAB" decode big.bin --elf big.elf --pcs - >/dev/null 2>&1'
  [decode_pipe]='"$LAB" decode big.bin --elf big.elf --pcs - 2>/dev/null | cat >/dev/null'
  [decode_file]='"$LAB" decode big.bin --elf big.elf --pcs out.pcs >/dev/null'
  [iss]='"$LAB" iss big.elf >/dev/null'
  [iss_null]='"$LAB" iss big.elf --pcs - >/dev/null 2>&1'
  [iss_pipe]='"$LAB" iss big.elf --pcs - 2>/dev/null | cat >/dev/null'
  [iss_file]='"$LAB" iss big.elf --pcs out.pcs >/dev/null'
)
order=(decode decode_null decode_pipe decode_file iss iss_null iss_pipe iss_file)
TIMEFORMAT='%U %S %R'
: >times
for ((i = 1; i <= rounds; i++)); do
  for tag in "${order[@]}"; do
    { time bash -c "${cmd[$tag]}"; } 2>t.one
    echo "$i $tag $(cat t.one)" >>times
  done
done

awk -v order="${order[*]}" '
  function median(a, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  { r = $1; if (r > n) n = r; u[$2, r] = $3; c[$2, r] = $3 + $4; w[$2, r] = $5 }
  END {
    k = split(order, tags, " ")
    for (t = 1; t <= k; t++) {
      g = tags[t]; ref = g; sub(/_.*/, "", ref)
      for (i = 1; i <= n; i++) {
        x[i] = u[g, i]; y[i] = c[g, i]; z[i] = w[g, i]
        ru[i] = u[g, i] / u[ref, i]; rc[i] = c[g, i] / c[ref, i]
      }
      printf "%-12s median user %.3f s, cpu %.3f s, wall %.3f s", g, median(x, n), median(y, n), median(z, n)
      if (g != ref) printf "; against %s: user %.2f, cpu %.2f (median of %d rounds)", ref, median(ru, n), median(rc, n), n
      printf "\n"
    }
  }' times

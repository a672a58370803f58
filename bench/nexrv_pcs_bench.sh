#!/usr/bin/env bash
# bench/nexrv_pcs_bench.sh: `ctte-lab decode --pcs` against the working group's reference decoder
# (NexRv -deco, riscv-non-isa/tg-nexus-trace refcode/c) writing the same PCs, and `iss --pcs`,
# on one stream of 14.1 M instructions (issue #17; docs/bench.md, docs/nexrv.md).
#
# Builds NexRv from NEXRV_DIR into a scratch folder (never into this tree), makes the stream
# (`workload gen --seed 17 --max-dynamic 17000000`, `encode`), NexRv's PC info (objdump of the
# code segment, `NexRv -conv -objd`), checks that both decoders write the same PCs (NexRv writes
# upper-case hex: compared as lower case), then times PAIRS rounds A B C D E with bash's `time`
# (whole processes; user, sys, wall) and prints the medians and the median of the pair ratios.
# D and E are the pipe case: `decode --pcs - | cat >/dev/null` against NexRv writing its PCs to
# the same kind of pipe (`-pcout /dev/fd/3`, its own messages to /dev/null); both times include
# cat's.
#
# Usage: NEXRV_DIR=/path/to/refcode/c bench/nexrv_pcs_bench.sh [PAIRS]   (default 5)
#   BUILD_DIR (default build), WORK (default a new temporary folder, removed at the end),
#   BASE_LAB (optional: another build's ctte-lab, e.g. main's; its decode --pcs must write the
#   same bytes, compared by SHA-256, or the script stops with exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "nexrv_pcs_bench: PAIRS '$pairs' is not a count" >&2; exit 2; }
nexrv_dir=${NEXRV_DIR:?set NEXRV_DIR to the NexRv sources (docs/nexrv.md)}
build=${BUILD_DIR:-build}
lab=$build/bin/ctte-lab
[ -x "$lab" ] || { echo "nexrv_pcs_bench: $lab is not built" >&2; exit 2; }
[ -f "$nexrv_dir/NexRvDeco.c" ] || { echo "nexrv_pcs_bench: no NexRv sources in $nexrv_dir" >&2; exit 2; }
if [ -z "${WORK:-}" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/nexrv-pcs-bench.XXXXXX"); trap 'rm -rf "$work"' EXIT
else
  work=$WORK; mkdir -p "$work"
fi

gcc -O2 -w "$nexrv_dir"/NexRv*.c -o "$work/NexRv"
"$lab" workload gen --seed 17 --max-dynamic 17000000 --out "$work/big.elf" >/dev/null
"$lab" encode "$work/big.elf" --out "$work/big.bin"
read -r off vaddr fsz < <(readelf -lW "$work/big.elf" | awk '$1 == "LOAD" && / R?W?E / { print $2, $3, $5; exit }')
dd if="$work/big.elf" of="$work/text.bin" bs=64K iflag=skip_bytes,count_bytes skip=$(( off )) \
  count=$(( fsz )) status=none
riscv64-unknown-elf-objdump -D -b binary -m riscv:rv64 --adjust-vma="$vaddr" "$work/text.bin" >"$work/big.objd"
"$work/NexRv" -conv -objd "$work/big.objd" -pcinfo "$work/big.pci" >/dev/null

A=("$lab" decode "$work/big.bin" --elf "$work/big.elf" --pcs "$work/a.pcs")
B=("$work/NexRv" -deco "$work/big.bin" -pcinfo "$work/big.pci" -pcout "$work/b.pcs" -none)
C=("$lab" iss "$work/big.elf" --pcs "$work/c.pcs")
D=(bash -c '"$1" decode "$2" --elf "$3" --pcs - 2>/dev/null | cat >/dev/null' _ "$lab" "$work/big.bin" "$work/big.elf")
E=(bash -c '"$1" -deco "$2" -pcinfo "$3" -pcout /dev/fd/3 -none 3>&1 >/dev/null | cat >/dev/null' _ "$work/NexRv" "$work/big.bin" "$work/big.pci")
"${A[@]}" >/dev/null; "${B[@]}" >/dev/null; "${C[@]}" >/dev/null
tr 'A-F' 'a-f' <"$work/b.pcs" | cmp - "$work/a.pcs" ||
  { echo "nexrv_pcs_bench: NexRv and ctte-lab decode wrote different PCs" >&2; exit 1; }
cmp "$work/c.pcs" "$work/a.pcs" || { echo "nexrv_pcs_bench: iss --pcs and decode --pcs differ" >&2; exit 1; }
"$lab" decode "$work/big.bin" --elf "$work/big.elf" --pcs - 2>/dev/null | cmp - "$work/a.pcs" ||
  { echo "nexrv_pcs_bench: decode --pcs - and --pcs FILE differ" >&2; exit 1; }
"$work/NexRv" -deco "$work/big.bin" -pcinfo "$work/big.pci" -pcout /dev/fd/3 -none 3>&1 >/dev/null |
  tr 'A-F' 'a-f' | cmp - "$work/a.pcs" ||
  { echo "nexrv_pcs_bench: NexRv -pcout /dev/fd/3 wrote other PCs" >&2; exit 1; }
if [ -n "${BASE_LAB:-}" ]; then
  "$BASE_LAB" decode "$work/big.bin" --elf "$work/big.elf" --pcs "$work/base.pcs" >/dev/null
  sha_a=$(sha256sum <"$work/a.pcs"); sha_base=$(sha256sum <"$work/base.pcs")
  [ "$sha_a" = "$sha_base" ] ||
    { echo "nexrv_pcs_bench: $BASE_LAB and $lab decode --pcs differ" >&2; exit 1; }
  echo "PC text sha256 ${sha_a%% *}, the same as $BASE_LAB's"
  rm -f "$work/base.pcs"
fi
n=$(wc -l <"$work/a.pcs")
echo "stream: $(stat -c %s "$work/big.bin") bytes, $n instructions, $(stat -c %s "$work/a.pcs") bytes of PC text"

TIMEFORMAT='%U %S %R'
timed() {  # timed TAG CMD...: appends "TAG user sys wall" to $work/times
  local tag=$1; shift
  { time "$@" >/dev/null 2>&1; } 2>"$work/t.one"
  echo "$tag $(cat "$work/t.one")" >>"$work/times"
}
: >"$work/times"
for ((i = 0; i < pairs; i++)); do
  timed A "${A[@]}"; timed B "${B[@]}"; timed C "${C[@]}"; timed D "${D[@]}"; timed E "${E[@]}"
done

awk -v n="$n" '
  function median(a, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  { k[$1]++; u[$1, k[$1]] = $2; c[$1, k[$1]] = $2 + $3; w[$1, k[$1]] = $4 }
  END {
    split("A B C D E", tags, " ")
    names["A"] = "ctte-lab decode --pcs"; names["B"] = "NexRv -deco -pcout"; names["C"] = "ctte-lab iss --pcs"
    names["D"] = "decode --pcs - | cat"; names["E"] = "NexRv -pcout pipe | cat"
    for (t = 1; t <= 5; t++) {
      g = tags[t]
      for (i = 1; i <= k[g]; i++) { x[i] = u[g, i]; y[i] = c[g, i]; z[i] = w[g, i] }
      mu = median(x, k[g]); mc = median(y, k[g]); mw = median(z, k[g])
      printf "%-22s median user %.3f s, cpu %.3f s, wall %.3f s; %.1f M instructions per cpu second\n", names[g], mu, mc, mw, n / mc / 1e6
    }
    for (i = 1; i <= k["A"]; i++) {
      ru[i] = u["A", i] / u["B", i]; rc[i] = c["A", i] / c["B", i]; rw[i] = w["A", i] / w["B", i]
      iu[i] = u["C", i] / u["A", i]; ic[i] = c["C", i] / c["A", i]
      pu[i] = u["D", i] / u["E", i]; pc[i] = c["D", i] / c["E", i]; pw[i] = w["D", i] / w["E", i]
    }
    m = k["A"]
    printf "decode/NexRv (median of %d pairs): user %.3f, cpu %.3f, wall %.3f: ours %.1fx faster in cpu, %.1fx in user time\n", m, median(ru, m), median(rc, m), median(rw, m), 1 / median(rc, m), 1 / median(ru, m)
    printf "iss/decode (median of %d pairs): user %.3f, cpu %.3f\n", m, median(iu, m), median(ic, m)
    printf "pipe, decode/NexRv with cat (median of %d pairs): user %.3f, cpu %.3f, wall %.3f: ours %.1fx faster in cpu\n", m, median(pu, m), median(pc, m), median(pw, m), 1 / median(pc, m)
  }' "$work/times"

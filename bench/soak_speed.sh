#!/usr/bin/env bash
# The two soak speed figures of issue #17 (docs/bench.md), in one call:
#  1. the share of the smoke soak's host CPU time inside the Verilator model (soak_bench
#     BM_SmokeTimeSplit: phase sampling, base/phase_sampler.h), with the other phases;
#  2. smoke runs per hour on 2 boards against 1 board: PAIRS pairs of whole soaks, run in turn
#     (1 board, 2 boards, 1, 2 ...) each into a fresh database, the ratio taken pair by pair
#     (runs per hour from the soak's own elapsed time) and the median printed, so that the
#     machine's drift during the call moves both sides of a pair alike.
# Usage: bench/soak_speed.sh [PAIRS] (default 2; BUILD_DIR, default build; SPLIT=0 skips 1,
# PAIRS=0 skips 2)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-2}
build=${BUILD_DIR:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctte-soak-speed-XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "${SPLIT:-1}" != 0 ]; then
  "$build/bench/soak_bench" --benchmark_filter=TimeSplit --benchmark_format=json \
    >"$work/split.json" 2>"$work/split.log"
  python3 - "$work/split.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
print("soak host CPU inside the model: %.1f %% (%d samples)" % (b["in_model_%"], b["samples"]))
print("  outside: board harness %.1f %%, judge %.1f %%, prepare %.1f %%, board ISS %.1f %%, other %.1f %%"
      % (b["board_harness_%"], b["judge_%"], b["prepare_%"], b["board_iss_%"], b["other_%"]))
PY
fi
soak() {  # soak BOARDS OUT.json
  rm -f "$work/s.db" "$work/s.db-wal" "$work/s.db-shm"
  "$build/bin/ctte-lab" soak campaigns/smoke.json --boards "$1" --db "$work/s.db" \
    --report-dir '' --json >"$2" 2>"$work/soak.log" || [ -s "$2" ]  # exit 1: a red control
}
for ((i = 0; i < pairs; ++i)); do
  soak 1 "$work/one-$i.json"
  soak 2 "$work/two-$i.json"
done
if [ "$pairs" -gt 0 ]; then
  python3 - "$work" "$pairs" <<'PY'
import json, statistics, sys
work, pairs = sys.argv[1], int(sys.argv[2])
def per_hour(path):
    s = json.load(open(path))["session"]
    return s["runs"] * 3600.0 / s["elapsed_seconds"]
ratios = []
for i in range(pairs):
    one, two = per_hour("%s/one-%d.json" % (work, i)), per_hour("%s/two-%d.json" % (work, i))
    ratios.append(two / one)
    print("pair %d: 1 board %.0f runs/hour, 2 boards %.0f runs/hour: %.2fx" % (i, one, two, two / one))
print("smoke runs per hour, 2 boards against 1: %.2fx (median of %d pairs)"
      % (statistics.median(ratios), pairs))
PY
fi

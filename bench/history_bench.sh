#!/usr/bin/env bash
# `history` and `report` on a month of nights (docs/soak.md#history-at-scale): CPU seconds (user
# + sys, /usr/bin/time) of whole processes on the synthetic database of bench/history_db.
#
# Usage: bench/history_bench.sh [DB] [BEFORE_CTTE_LAB]   (BUILD_DIR, default build)
#
# DB (default /tmp/ctte-history/h300k.db) is made with `history_db DB` (30 nights x 10 000
# runs) when absent. A copy, DB.migrated.db, is brought to this build's schema with
# `history_db --migrate` (the time of the migration's backfill is printed). Then each command
# runs once on the copy with this build's ctte-lab and, when BEFORE_CTTE_LAB is given (an older
# build), once on DB itself with that one (an older build reads the file at the schema it knows):
#   history --db F          history --db F --json          report 30 --db F --html --junit --csv
# For ratios on a shared machine, time a pair of these commands run by run (A B A B ...) with a
# paired timer and quote the median ratio; docs/bench.md gives the figures and the commands.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
db=${1:-/tmp/ctte-history/h300k.db}
before=${2:-}
mkdir -p "$(dirname "$db")"
[ -f "$db" ] || "$build/bench/history_db" "$db"
migrated=$db.migrated.db
if [ ! -f "$migrated" ]; then
  cp "$db" "$migrated.tmp"
  "$build/bench/history_db" --migrate "$migrated.tmp"
  mv "$migrated.tmp" "$migrated"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpu() {  # cpu LABEL CMD...: prints "LABEL  CPU s  (exit)"
  local label=$1
  shift
  /usr/bin/time -f '%U %S %x' -o "$out/t" "$@" >"$out/stdout" 2>"$out/stderr" || true
  read -r u s x <"$out/t"
  printf '  %-44s %7.2f CPU s  (exit %s)\n' "$label" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$x"
}
for who in after before; do
  lab=$build/bin/ctte-lab file=$migrated
  if [ "$who" = before ]; then
    [ -n "$before" ] || continue
    lab=$before file=$db
  fi
  echo "$who: $lab on $file"
  cpu "history" "$lab" history --db "$file"
  cpu "history --json" "$lab" history --db "$file" --json
  cpu "report 30 --html --junit --csv (one night)" "$lab" report 30 --db "$file" \
    --html "$out/r.html" --junit "$out/r.xml" --csv "$out/r.csv"
done

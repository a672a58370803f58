# Shared helpers of the tests/ci scripts (sourced).

# job_script FILE JOB [SECTION]: the `script:` (or SECTION:, e.g. before_script) entries of
# top-level job JOB in GitLab YAML FILE, one per line. The templates keep each entry on one line
# ("    - command"), which is all this reads.
job_script() {
  awk -v job="$2" -v section="${3:-script}" '
    /^[^ #][^:]*:/ { injob = ($0 == job ":"); inscript = 0; next }
    injob && $0 ~ ("^  " section ":[ ]*$") { inscript = 1; next }
    injob && inscript && /^    - / { sub(/^    - /, ""); print; next }
    injob && /^  [^ ]/ { inscript = 0 }
  ' "$1"
}

# job_key FILE JOB KEY: the value of "  KEY: value" in job JOB.
job_key() {
  awk -v job="$2" -v key="$3" '
    /^[^ #][^:]*:/ { injob = ($0 == job ":"); next }
    injob && index($0, "  " key ": ") == 1 { sub("^  " key ": ", ""); print; exit }
  ' "$1"
}

# runs_tsv DB: the recorded behaviour of a database (tests/behaviour/golden/*.tsv columns).
runs_tsv() {
  sqlite3 -separator $'\t' "$1" \
    "SELECT idx, seed, config_json, IFNULL(stream_sha256, ''), status FROM runs
     WHERE replay_of IS NULL AND json_extract(config_json, '$.control') IS NULL ORDER BY idx"
}

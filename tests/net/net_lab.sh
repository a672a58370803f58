# Shared set-up of the two-agent lab for the network tests and bench (sourced, not run):
# tests/net/net_soak_lab_test.sh, tests/net/net_soak_kill_test.sh, bench/net_soak_bench.sh.
# Needs $lab (ctte-lab), $board (ctte-board) and $build (the build folder). Gives:
#   $work            a fresh folder, removed on exit with every process in $pids
#   net_lab_certs    a lab CA and certificates for board-a, board-b (role board) and runner
#                    (role runner)
#   start_agent NAME an agent on 127.0.0.1:0 with NAME's certificate, serving the runner (or
#                    the runners of $AGENT_ALLOW) and loading only the images in $build/images,
#                    with the flags of $AGENT_FLAGS;
#                    sets $port and $agent_pid
#   write_lab_json A_PORT B_PORT [B_EXTRA]   $work/lab.json naming the two agents
#   two_agents       net_lab_certs, agents board-a and board-b, and $work/lab.json naming
#                    them; sets $port_a, $port_b, $pid_a, $pid_b
#   check_golden_rows N   the N campaign rows of $work/lab.db (no replays, no controls) equal
#                    the golden smoke rows of the same indices (needs $src); exits 1 if not
work=$(mktemp -d)
pids=()
net_lab_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap net_lab_cleanup EXIT

net_lab_certs() {
  "$lab" lab init-ca "$work/ca" >/dev/null
  for n in board-a board-b; do
    "$lab" lab issue "$n" --role board --ca "$work/ca" --out "$work/certs" >/dev/null
  done
  "$lab" lab issue runner --role runner --ca "$work/ca" --out "$work/certs" >/dev/null
}

start_agent() {  # NAME -> sets port, agent_pid
  local name=$1
  : >"$work/$name.log"  # exists before the background agent's redirection creates it
  "$board" --listen tcp:127.0.0.1:0 --cert "$work/certs/$name.crt" --key "$work/certs/$name.key" \
    --ca "$work/ca/ca.crt" --allow "${AGENT_ALLOW:-runner}" --image-dir "$build/images" \
    ${AGENT_FLAGS:-} 2>"$work/$name.log" &
  agent_pid=$!
  pids+=($agent_pid)
  for _ in $(seq 100); do
    port=$(sed -n 's/^ctte-board: port \([0-9]*\)$/\1/p' "$work/$name.log" || true)
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "FAIL: agent $name did not start" >&2; cat "$work/$name.log" >&2; exit 3
}

two_agents() {
  net_lab_certs
  start_agent board-a; port_a=$port pid_a=$agent_pid
  start_agent board-b; port_b=$port pid_b=$agent_pid
  write_lab_json "$port_a" "$port_b"
}

write_lab_json() {  # A_PORT B_PORT [extra JSON members for board-b, with a leading comma]
  cat >"$work/lab.json" <<JSON
{"boards": [
  {"name": "board-a", "kind": "net", "address": "127.0.0.1:$1",
   "cert": "certs/runner.crt", "key": "certs/runner.key", "ca": "ca/ca.crt"},
  {"name": "board-b", "kind": "net", "address": "127.0.0.1:$2",
   "cert": "certs/runner.crt", "key": "certs/runner.key", "ca": "ca/ca.crt"${3:-}}
]}
JSON
}

check_golden_rows() {  # N
  sqlite3 -separator $'\t' "$work/lab.db" \
    "SELECT idx, seed, config_json, IFNULL(stream_sha256, ''), status FROM runs
     WHERE replay_of IS NULL AND json_extract(config_json, '$.control') IS NULL ORDER BY idx" >"$work/lab.tsv"
  local n
  n=$(wc -l <"$work/lab.tsv")
  [ "$n" -eq "$1" ] || { echo "FAIL: $n runs stored, expected $1"; cat "$work/soak.log"; exit 1; }
  awk -F'\t' 'NR==FNR {want[$1]=1; next} ($1 in want)' "$work/lab.tsv" \
    "$src/tests/behaviour/golden/smoke.tsv" >"$work/golden.tsv"
  if ! cmp -s "$work/golden.tsv" "$work/lab.tsv"; then
    echo "FAIL: runs through the agents differ from tests/behaviour/golden/smoke.tsv:"
    diff <(cut -f1,2,4,5 "$work/golden.tsv") <(cut -f1,2,4,5 "$work/lab.tsv") | head -20 || true
    exit 1
  fi
}

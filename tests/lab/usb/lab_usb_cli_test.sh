#!/usr/bin/env bash
# `ctte-lab lab usb` and `lab power-cycle` on a described bus (CTTE_USB_FIXTURE, the fixture
# backend: lab/usb/fixture_backend.h): listing, a verified cycle, a hub that ignores the
# request, a ganged hub, a huge port number, usage errors. With CTTE_USB_HW=1 (and only then)
# it also runs both commands against the real libusb of this machine, which may switch a real
# hub port. Usage: lab_usb_cli_test.sh SOURCE_DIR BINARY_DIR
set -euo pipefail
bin="$2/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lab.json" <<'JSON'
{"boards": [{"name": "board-a", "kind": "local", "usb": {"serial": "FT4232-0042", "hub_port": "1-2.3"}},
            {"name": "board-b", "kind": "local"},
            {"name": "board-c", "kind": "local", "usb": {"serial": "FT-C", "hub_port": "1-3.1"}},
            {"name": "board-d", "kind": "local", "usb": {"serial": "FT-D", "hub_port": "1-4.2"}},
            {"name": "board-e", "kind": "local", "usb": {"serial": "FT-E", "hub_port": "1-2.99999999999"}}]}
JSON
cat > "$tmp/bus.json" <<'JSON'
{"hubs": [{"path": "1-2", "ports": 4, "switching": "per-port"},
          {"path": "1-3", "ports": 4, "switching": "per-port", "ignores_power": true},
          {"path": "1-4", "ports": 4, "switching": "ganged"}],
 "devices": [{"serial": "FT4232-0042", "hub": "1-2", "port": 3, "enumerate_lists": 2},
             {"serial": "FT-C", "hub": "1-3", "port": 1},
             {"serial": "FT-D", "hub": "1-4", "port": 2}]}
JSON
export CTTE_USB_FIXTURE="$tmp/bus.json"
lab=(--lab "$tmp/lab.json")
out=$("$bin/ctte-lab" lab usb "${lab[@]}"); echo "$out"
grep -q "1-2.3 .*FT4232-0042 .*board board-a" <<<"$out"
json=$("$bin/ctte-lab" lab usb "${lab[@]}" --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert [x["board"] for x in d["devices"] if x["board"]] == ["board-a","board-c","board-d"], d' "$json"
out=$("$bin/ctte-lab" lab power-cycle board-a "${lab[@]}" --off-ms 0 --timeout-ms 2000); echo "$out"
grep -q "board board-a: hub port 1-2.3 off 0 ms (on hub 1-2) and on; serial FT4232-0042 gone after 0 ms" <<<"$out"
expect() {  # expect RC TEXT COMMAND...: exit code and a line of stderr
  local rc=$1 text=$2; shift 2
  set +e; "$@" 2>"$tmp/err" >/dev/null; local got=$?; set -e
  cat "$tmp/err"
  [[ $got == "$rc" ]] || { echo "expected exit $rc, got $got: $*"; exit 1; }
  grep -q -- "$text" "$tmp/err" || { echo "expected '$text' on stderr: $*"; exit 1; }
}
expect 2 "never went away" "$bin/ctte-lab" lab power-cycle board-c "${lab[@]}" --off-ms 0 --timeout-ms 500
expect 2 "reports ganged power switching" "$bin/ctte-lab" lab power-cycle board-d "${lab[@]}" --off-ms 0
expect 2 "outside 1..255" "$bin/ctte-lab" lab power-cycle board-e "${lab[@]}"
expect 2 "names no usb.hub_port" "$bin/ctte-lab" lab power-cycle board-b "${lab[@]}"
expect 2 "no board board-z" "$bin/ctte-lab" lab power-cycle board-z "${lab[@]}"
unset CTTE_USB_FIXTURE
if [[ "${CTTE_USB_HW:-}" == 1 ]]; then  # opted in: the host's real USB (may switch a real port)
  "$bin/ctte-lab" lab usb "${lab[@]}"
  "$bin/ctte-lab" lab power-cycle board-a "${lab[@]}" --off-ms 0 --timeout-ms 0 || true
fi
echo "ok"

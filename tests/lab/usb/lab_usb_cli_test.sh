#!/usr/bin/env bash
# `ctte-lab lab usb` and `lab power-cycle` against the real libusb on a machine without USB
# devices: both say so and exit 0; usage errors exit 2.
set -euo pipefail
bin="$2/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lab.json" <<'JSON'
{"boards": [{"name": "board-a", "kind": "local", "usb": {"serial": "FT4232-0042", "hub_port": "1-2.3"}},
            {"name": "board-b", "kind": "local"}]}
JSON
out=$("$bin/ctte-lab" lab usb --lab "$tmp/lab.json")
echo "$out"
if [[ -z "$(ls /dev/bus/usb 2>/dev/null)" ]]; then
  grep -q "no USB devices" <<<"$out"
  grep -q "board board-a (serial FT4232-0042): not seen" <<<"$out" || grep -q "libusb" <<<"$out"
fi
json=$("$bin/ctte-lab" lab usb --lab "$tmp/lab.json" --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert "devices" in d, d' "$json"
out=$("$bin/ctte-lab" lab power-cycle board-a --lab "$tmp/lab.json" --off-ms 0 --timeout-ms 0)
echo "$out"
if [[ -z "$(ls /dev/bus/usb 2>/dev/null)" ]]; then grep -q "no USB devices" <<<"$out"; fi
set +e
"$bin/ctte-lab" lab power-cycle board-b --lab "$tmp/lab.json"; rc_nohub=$?
"$bin/ctte-lab" lab power-cycle board-z --lab "$tmp/lab.json"; rc_noboard=$?
set -e
[[ $rc_nohub == 2 && $rc_noboard == 2 ]] || { echo "expected exit 2, got $rc_nohub $rc_noboard"; exit 1; }
echo "ok"

#!/usr/bin/env bash
# `ctte-lab run` through ZynqBoard (ctte-board --board zynq --emulated-fabric) on the fabric
# emulator gives the same verdicts and the same stream bytes as on the simulated board, for
# several configurations (plain, BTM with backpressure and periodic sync at 71.11 MHz, a ring
# that wraps). Usage: zynq_run_test.sh SOURCE_DIR BINARY_DIR
set -euo pipefail
bin="$2/bin"
images="$2/images"
workloads="$2/workloads"
tmp=$(mktemp -d)
emu_pid=""
cleanup() {
  exec 9>&- 2>/dev/null || true
  if [[ -n "$emu_pid" ]]; then kill "$emu_pid" 2>/dev/null || true; wait "$emu_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkfifo "$tmp/emu.in"
"$bin/zynq-fabric-emulator" --sysroot "$tmp/root" --image-dir "$images" <"$tmp/emu.in" >"$tmp/emu.out" 2>"$tmp/emu.err" &
emu_pid=$!
exec 9>"$tmp/emu.in"   # the emulator runs while this stays open
for _ in $(seq 100); do grep -q ready "$tmp/emu.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$tmp/emu.out" || { cat "$tmp/emu.err"; exit 1; }
# The lab's install step (docs/zynq-board.md): the harness overlay in lib/firmware; every deploy
# applies it through configfs.
[[ -f "$2/zynq/ctte-harness.dtbo" ]] || { echo "overlay $2/zynq/ctte-harness.dtbo not built (dtc: scripts/setup)"; exit 1; }
cp "$2/zynq/ctte-harness.dtbo" "$tmp/root/lib/firmware/"

verdicts() {  # the judged part of run --json: status, verdicts and outcomes, stream digest
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["status"], d["stream"]["sha256"], d["stream"]["size"])
for v in d["verdicts"]:
    print(v["verdict"], v["outcome"])
for dom in ("fabric", "sink"):  # the board measures its clocks: within 1000 ppm, not equal
    c = d["clocks"][dom]
    assert abs(c["read_back_hz"] - c["programmed_hz"]) * 1e6 <= c["programmed_hz"] * 1000, c
    print(dom, c["programmed_hz"])

' "$1"
}

n=0
check() {
  n=$((n + 1))
  local common=(run --image "$images/ntrace-slim.manifest.json" --json "$@")
  set +e
  "$bin/ctte-lab" "${common[@]}" --stream-out "$tmp/sim$n.bin" >"$tmp/sim$n.json"; rc_sim=$?
  "$bin/ctte-lab" "${common[@]}" --stream-out "$tmp/zynq$n.bin" \
      --board zynq --sysroot "$tmp/root" --emulated-fabric >"$tmp/zynq$n.json"; rc_zynq=$?
  set -e
  if [[ $rc_sim != "$rc_zynq" ]]; then
    echo "config $n: exit $rc_sim on sim, $rc_zynq on zynq"; cat "$tmp/zynq$n.json" "$tmp/emu.err"; exit 1
  fi
  verdicts "$tmp/sim$n.json" >"$tmp/sim$n.v"
  verdicts "$tmp/zynq$n.json" >"$tmp/zynq$n.v"
  diff "$tmp/sim$n.v" "$tmp/zynq$n.v" || { echo "config $n: verdicts differ"; exit 1; }
  if [[ -f "$tmp/sim$n.bin" ]]; then
    cmp "$tmp/sim$n.bin" "$tmp/zynq$n.bin" || { echo "config $n: stream bytes differ"; exit 1; }
  fi
  python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["board"]["kind"]; assert k=="remote:zynq", k' "$tmp/zynq$n.json"
  [[ "$(cat "$tmp/root/sys/kernel/config/device-tree/overlays/ctte/status")" == applied ]] ||
    { echo "config $n: the overlay is not applied"; exit 1; }
  echo "config $n ($*): exit $rc_sim, $(head -1 "$tmp/zynq$n.v")"
}

check --workload "$workloads/calls.elf"
check --workload "$workloads/sort.elf" --mode btm --backpressure uniform:70 --sync-mode messages \
      --sync-period 64 --fabric-mhz 71.11 --ipc 0.5 --seed 7
check --workload "$workloads/traps.elf" --interrupt-every 300 --backpressure bursty:2-9 --seed 3
check --workload "$workloads/loop.elf" --ring-bytes 64
echo "ok: $n configurations, same verdicts and stream bytes on ZynqBoard and SimBoard"

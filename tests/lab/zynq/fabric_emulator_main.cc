// zynq-fabric-emulator: the fabric emulator (fabric_emulator.h) as a process, for end-to-end
// tests of `ctte-board --board zynq --emulated-fabric` and `ctte-lab run --board zynq`:
//   zynq-fabric-emulator --sysroot DIR --image-dir DIR [--load-state STATE]
// Lays out the tree, prints "ready" on stdout, serves until stdin closes or SIGTERM/SIGINT.
#include <CLI/CLI.hpp>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "tests/lab/zynq/fabric_emulator.h"

namespace {
volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zynq-fabric-emulator: plays the PL behind a ZynqBoard fixture tree (tests)"};
  ctte::lab::zynq::FabricEmulatorOptions o;
  app.add_option("--sysroot", o.sysroot, "the fixture tree (created)")->required();
  app.add_option("--image-dir", o.image_dir, "image manifests (build/images)")->required();
  app.add_option("--load-state", o.load_state, "FPGA manager state after a load (default operating)");
  app.add_option("--clock", o.clock, "PL clocks: register (default), slow, gated, firmware")
      ->check(CLI::IsMember({"register", "slow", "gated", "firmware"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  auto emu = ctte::lab::zynq::FabricEmulator::Create(o);
  if (!emu.ok()) {
    std::fprintf(stderr, "zynq-fabric-emulator: %s\n", emu.status().ToString().c_str());
    return 3;
  }
  ::signal(SIGTERM, OnSignal);
  ::signal(SIGINT, OnSignal);
  (*emu)->Start();
  std::printf("ready\n");
  std::fflush(stdout);
  while (!g_stop) {
    pollfd p{0, POLLIN, 0};
    const int rc = ::poll(&p, 1, 200);
    if (rc > 0) {
      char buf[64];
      if (::read(0, buf, sizeof buf) <= 0) break;  // stdin closed: the test is done
    }
  }
  (*emu)->Stop();
  const std::string err = (*emu)->last_error();
  if (!err.empty()) std::fprintf(stderr, "zynq-fabric-emulator: last error: %s\n", err.c_str());
  return 0;
}

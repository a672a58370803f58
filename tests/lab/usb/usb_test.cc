// USB: hub-port parsing (bounded), the power-cycle sequence against the fixture bus
// (lab/usb/fixture_backend.h: hubs that switch per port, ganged, not at all, or ignore the
// request; USB 3 hubs and their USB 2 companions sharing VBUS), and the real libusb backend on
// this machine (which may have no devices).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lab/usb/fixture_backend.h"
#include "lab/usb/libusb_backend.h"
#include "lab/usb/usb.h"

namespace ctte::lab::usb {
namespace {

using Hub = FixtureBackend::FixtureHub;
using Dev = FixtureBackend::FixtureDevice;

// Hub 1-2 (4 ports, `switching`) with the board BOARD-7 on port 3.
FixtureBackend OneHub(PowerSwitching switching = PowerSwitching::kPerPort, int enumerate = 2,
                      bool ignores_power = false) {
  Hub h{"1-2", 4, switching, false, "", ignores_power};
  return FixtureBackend({h}, {Dev{"BOARD-7", "1-2", 3, 0x0403, 0x6011, enumerate}});
}

PowerCycleOptions NoWait(int* slept = nullptr) {
  PowerCycleOptions o;
  o.off_ms = 1500;
  o.poll_ms = 100;
  o.come_back_ms = 1000;
  o.sleep = [slept](int ms) {
    if (slept != nullptr) *slept += ms;
  };
  return o;
}

TEST(UsbTest, ParsesHubPorts) {
  Result<HubPort> a = ParseHubPort("1-2.3");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->hub_path, "1-2");
  EXPECT_EQ(a->port, 3);
  Result<HubPort> b = ParseHubPort("3-1.4.2");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->hub_path, "3-1.4");
  EXPECT_EQ(b->port, 2);
  Result<HubPort> root = ParseHubPort("1-4");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->hub_path, "usb1");
  EXPECT_EQ(root->port, 4);
  for (const char* bad : {"", "1", "1-", "-2", "a-2", "1-2.", "1-2..3", "1-2.x", "1-0", "1-999",
                          "0-1", "1--2", "1-+2", "1-1.2.3.4.5.6.7.8", "99999999999-1"}) {
    EXPECT_FALSE(ParseHubPort(bad).ok()) << bad;
  }
}

// std::stoi threw std::out_of_range here (uncaught in `lab power-cycle` and in the soak).
TEST(UsbTest, PortWithAHugeNumberIsAClearError) {
  Result<HubPort> r = ParseHubPort("1-99999999999");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("port '99999999999' outside 1..255"), std::string::npos)
      << r.status().ToString();
  FixtureBackend hub = OneHub();
  std::string note;
  EXPECT_FALSE(PowerCycleBoard(&hub, {"BOARD-7", "1-2.99999999999"}, NoWait(), &note));
  EXPECT_NE(note.find("outside 1..255"), std::string::npos) << note;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(UsbTest, PowerCycleSeesTheBoardGoAndComeBack) {
  FixtureBackend hub = OneHub();
  int slept = 0;
  Result<PowerCycleResult> r = PowerCycle(hub, "1-2.3", "BOARD-7", NoWait(&slept));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  using Req = std::tuple<std::string, int, bool>;
  EXPECT_EQ(hub.requests(), (std::vector<Req>{{"1-2", 3, false}, {"1-2", 3, true}}));
  EXPECT_TRUE(r->was_present);
  EXPECT_EQ(r->gone_after_ms, 0);
  EXPECT_TRUE(r->came_back);
  EXPECT_EQ(r->waited_ms, 200);  // seen on the third list after power-on
  EXPECT_EQ(slept, 1500 + 200);
  EXPECT_EQ(r->hubs, std::vector<std::string>{"1-2"});
}

// A hub that accepts PORT_POWER but has no switch wired (as many do): the board never goes
// away, so nothing was cycled. Reported as such, never as a recovery.
TEST(UsbTest, PowerCycleWhoseDeviceNeverDisappearsFails) {
  FixtureBackend hub = OneHub(PowerSwitching::kPerPort, 2, /*ignores_power=*/true);
  Result<PowerCycleResult> r = PowerCycle(hub, "1-2.3", "BOARD-7", NoWait());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIOError);
  EXPECT_NE(r.status().message().find("never went away"), std::string::npos) << r.status().ToString();
  ASSERT_FALSE(hub.requests().empty());
  EXPECT_TRUE(std::get<2>(hub.requests().back()));  // switched back on
  std::string note;
  EXPECT_FALSE(PowerCycleBoard(&hub, {"BOARD-7", "1-2.3"}, NoWait(), &note));
  EXPECT_NE(note.find("never went away"), std::string::npos) << note;
}

TEST(UsbTest, GangedOrUnswitchedHubIsRefused) {
  for (PowerSwitching p : {PowerSwitching::kGanged, PowerSwitching::kNone}) {
    FixtureBackend hub = OneHub(p);
    Result<PowerCycleResult> r = PowerCycle(hub, "1-2.3", "BOARD-7", NoWait());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(std::string("reports ") + PowerSwitchingName(p) +
                                        " power switching"), std::string::npos)
        << r.status().ToString();
    EXPECT_TRUE(hub.requests().empty());  // nothing sent
  }
  // The fixture's ganged hub is a real one: one port's CLEAR leaves the gang powered.
  FixtureBackend ganged = OneHub(PowerSwitching::kGanged);
  ASSERT_TRUE(ganged.SetPortPower("1-2", 3, false).ok());
  EXPECT_TRUE(*ganged.PortConnected("1-2", 3));
}

// Both halves of a USB 3 hub feed the connector: switching only one leaves the board powered.
TEST(UsbTest, Usb3HubSwitchesBothHalves) {
  const auto bus = [] {
    return FixtureBackend({Hub{"2-1", 4, PowerSwitching::kPerPort, true, "1-1", false},
                           Hub{"1-1", 4, PowerSwitching::kPerPort, false, "2-1", false}},
                          {Dev{"KV260-3", "2-1", 2, 0x0403, 0x6011, 1}});
  };
  FixtureBackend half = bus();
  ASSERT_TRUE(half.SetPortPower("2-1", 2, false).ok());  // what a USB 2-only cycle did
  EXPECT_TRUE(*half.PortConnected("2-1", 2)) << "one half off must not cut VBUS";
  FixtureBackend hub = bus();
  Result<PowerCycleResult> r = PowerCycle(hub, "2-1.2", "KV260-3", NoWait());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->hubs, (std::vector<std::string>{"2-1", "1-1"}));
  using Req = std::tuple<std::string, int, bool>;
  EXPECT_EQ(hub.requests(), (std::vector<Req>{{"2-1", 2, false}, {"1-1", 2, false},
                                              {"2-1", 2, true}, {"1-1", 2, true}}));
}

TEST(UsbTest, PowerCycleIsBoundedWhenTheBoardDoesNotComeBack) {
  FixtureBackend hub = OneHub(PowerSwitching::kPerPort, /*enumerate=*/1000);
  int slept = 0;
  PowerCycleOptions o = NoWait(&slept);
  o.off_ms = 10;
  o.poll_ms = 250;
  Result<PowerCycleResult> r = PowerCycle(hub, "1-2.3", "BOARD-7", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kTimeout);
  EXPECT_NE(r.status().message().find("did not come back within 1000 ms"), std::string::npos);
  EXPECT_TRUE(std::get<2>(hub.requests().back()));  // the port is switched back on regardless
  EXPECT_EQ(slept, 250 + 1000);
}

TEST(UsbTest, PowerCycleReportsAMissingHubOrPort) {
  FixtureBackend hub = OneHub();
  Result<PowerCycleResult> r = PowerCycle(hub, "2-1.3", "BOARD-7", NoWait());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no USB hub at 2-1"), std::string::npos);
  r = PowerCycle(hub, "1-2.9", "BOARD-7", NoWait());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("has 4 ports, no port 9"), std::string::npos);
  EXPECT_FALSE(PowerCycle(hub, "nonsense", "BOARD-7", NoWait()).ok());
  EXPECT_TRUE(hub.requests().empty());
}

// The soak's before-quarantine power cycle: one cycle when the hub port is known and devices
// are there, nothing (false, saying why) otherwise.
TEST(UsbTest, PowerCycleBoardForTheSoakSeam) {
  FixtureBackend hub = OneHub();
  std::string note;
  EXPECT_TRUE(PowerCycleBoard(&hub, {"BOARD-7", "1-2.3"}, NoWait(), &note)) << note;
  EXPECT_EQ(hub.requests().size(), 2u);
  EXPECT_NE(note.find("power-cycled"), std::string::npos);
  FixtureBackend untouched = OneHub();
  EXPECT_FALSE(PowerCycleBoard(&untouched, {"BOARD-7", ""}, NoWait(), &note));
  EXPECT_NE(note.find("no usb.hub_port"), std::string::npos);
  EXPECT_TRUE(untouched.requests().empty());
  EXPECT_FALSE(PowerCycleBoard(nullptr, {"BOARD-7", "1-2.3"}, NoWait(), &note));
  FixtureBackend empty({}, {});
  EXPECT_FALSE(PowerCycleBoard(&empty, {"BOARD-7", "1-2.3"}, NoWait(), &note));
  EXPECT_NE(note.find("no USB devices"), std::string::npos);
  EXPECT_TRUE(empty.requests().empty());
}

TEST(UsbTest, FixtureBusFileErrorsNameThePath) {
  const std::string p = ::testing::TempDir() + "ctte_usb_bus.json";
  std::ofstream(p) << R"({"hubs": [{"path": "1-2", "ports": 4, "switching": "sometimes"}]})";
  Result<std::unique_ptr<FixtureBackend>> f = FixtureBackend::Load(p);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("$.hubs[0].switching"), std::string::npos)
      << f.status().ToString();
  std::filesystem::remove(p);
}

// The real libusb on this host: it initialises or says why not, and lists what there is (on the
// build machines: nothing), without needing a device.
TEST(UsbTest, RealLibusbListsOrSaysWhy) {
  Result<std::unique_ptr<LibusbBackend>> b = LibusbBackend::Create();
  if (!b.ok()) {
    EXPECT_EQ(b.status().code(), Status::Code::kUnavailable);
    EXPECT_NE(b.status().message().find("libusb_init"), std::string::npos);
    return;
  }
  Result<std::vector<UsbDevice>> d = (*b)->List();
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  for (const UsbDevice& u : *d) EXPECT_FALSE(u.port_path.empty());
  EXPECT_FALSE((*b)->SetPortPower("9-9.9", 1, true).ok());  // no such hub
  EXPECT_EQ((*b)->Hub("9-9.9").status().code(), Status::Code::kNotFound);
  EXPECT_FALSE((*b)->PortConnected("9-9.9", 1).ok());
}

}  // namespace
}  // namespace ctte::lab::usb

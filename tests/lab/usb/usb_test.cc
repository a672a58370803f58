// USB: hub-port parsing, the power-cycle sequence against a fake hub that records the
// hub-class requests, and the real libusb backend on this machine (which may have no devices).
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "lab/usb/libusb_backend.h"
#include "lab/usb/usb.h"

namespace ctte::lab::usb {
namespace {

// A hub at "1-2" with a board (serial "BOARD-7") on port 3: off removes it from the bus, on
// brings it back after `enumerate_lists` List() calls (a device enumerates after power-on).
class FakeHub : public UsbBackend {
 public:
  struct Request {
    std::string hub;
    int port;
    bool on;
  };
  int enumerate_lists = 3;
  bool never_back = false;
  std::vector<Request> requests;
  int lists = 0;

  Result<std::vector<UsbDevice>> List() override {
    ++lists;
    std::vector<UsbDevice> d;
    d.push_back({0x1d6b, 0x0002, "", "Linux", "root hub", "usb1", true, ""});
    d.push_back({0x05e3, 0x0610, "", "", "hub", "1-2", true, ""});
    if (powered_ && !never_back && (countdown_ == 0 || --countdown_ == 0)) {
      d.push_back({0x0403, 0x6011, "BOARD-7", "FTDI", "Quad RS232", "1-2.3", false, ""});
    }
    return d;
  }
  Status SetPortPower(const std::string& hub, int port, bool on) override {
    requests.push_back({hub, port, on});
    if (hub != "1-2") return Status::NotFound("no USB hub at " + hub);
    if (port == 3) {
      powered_ = on;
      countdown_ = on ? enumerate_lists : 0;
    }
    return Status::Ok();
  }

 private:
  bool powered_ = true;
  int countdown_ = 0;
};

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
  for (const char* bad : {"", "1", "1-", "-2", "a-2", "1-2.", "1-2..3", "1-2.x", "1-0", "1-999"}) {
    EXPECT_FALSE(ParseHubPort(bad).ok()) << bad;
  }
}

TEST(UsbTest, PowerCycleSendsClearThenSetAndWaitsForTheSerial) {
  FakeHub hub;
  int slept = 0;
  PowerCycleOptions o;
  o.off_ms = 1500;
  o.poll_ms = 100;
  o.sleep = [&](int ms) { slept += ms; };
  Result<PowerCycleResult> r = PowerCycle(hub, "1-2.3", "BOARD-7", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(hub.requests.size(), 2u);
  EXPECT_EQ(hub.requests[0].hub, "1-2");
  EXPECT_EQ(hub.requests[0].port, 3);
  EXPECT_FALSE(hub.requests[0].on);  // CLEAR_FEATURE PORT_POWER first
  EXPECT_TRUE(hub.requests[1].on);   // then SET_FEATURE PORT_POWER
  EXPECT_TRUE(r->was_present);
  EXPECT_TRUE(r->came_back);
  EXPECT_EQ(r->waited_ms, 200);  // seen on the third list after power-on
  EXPECT_EQ(slept, 1500 + 200);
}

TEST(UsbTest, PowerCycleIsBoundedWhenTheBoardDoesNotComeBack) {
  FakeHub hub;
  hub.never_back = true;
  int slept = 0;
  PowerCycleOptions o;
  o.off_ms = 10;
  o.poll_ms = 250;
  o.come_back_ms = 1000;
  o.sleep = [&](int ms) { slept += ms; };
  Result<PowerCycleResult> r = PowerCycle(hub, "1-2.3", "BOARD-7", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kTimeout);
  EXPECT_NE(r.status().message().find("did not come back within 1000 ms"), std::string::npos);
  EXPECT_EQ(hub.requests.size(), 2u);  // the port is switched back on regardless
  EXPECT_TRUE(hub.requests[1].on);
  EXPECT_EQ(slept, 10 + 1000);
}

TEST(UsbTest, PowerCycleReportsAMissingHub) {
  FakeHub hub;
  PowerCycleOptions o;
  o.sleep = [](int) {};
  Result<PowerCycleResult> r = PowerCycle(hub, "2-1.3", "BOARD-7", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no USB hub at 2-1"), std::string::npos);
  EXPECT_FALSE(PowerCycle(hub, "nonsense", "BOARD-7", o).ok());
}

// The soak's before-quarantine power cycle: one cycle when the hub port is known and devices
// are there, nothing (false, saying why) otherwise.
TEST(UsbTest, PowerCycleBoardForTheSoakSeam) {
  PowerCycleOptions o;
  o.sleep = [](int) {};
  FakeHub hub;
  std::string note;
  EXPECT_TRUE(PowerCycleBoard(&hub, {"BOARD-7", "1-2.3"}, o, &note)) << note;
  EXPECT_EQ(hub.requests.size(), 2u);
  EXPECT_NE(note.find("power-cycled"), std::string::npos);
  FakeHub untouched;
  EXPECT_FALSE(PowerCycleBoard(&untouched, {"BOARD-7", ""}, o, &note));
  EXPECT_NE(note.find("no usb.hub_port"), std::string::npos);
  EXPECT_TRUE(untouched.requests.empty());
  EXPECT_FALSE(PowerCycleBoard(nullptr, {"BOARD-7", "1-2.3"}, o, &note));
  FakeHub gone;
  gone.never_back = true;
  o.come_back_ms = 500;
  EXPECT_FALSE(PowerCycleBoard(&gone, {"BOARD-7", "1-2.3"}, o, &note));
  EXPECT_NE(note.find("did not come back"), std::string::npos) << note;
  struct Empty : UsbBackend {
    Result<std::vector<UsbDevice>> List() override { return std::vector<UsbDevice>{}; }
    Status SetPortPower(const std::string&, int, bool) override {
      ADD_FAILURE() << "no request without devices";
      return Status::Ok();
    }
  } empty;
  EXPECT_FALSE(PowerCycleBoard(&empty, {"BOARD-7", "1-2.3"}, o, &note));
  EXPECT_NE(note.find("no USB devices"), std::string::npos);
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
}

}  // namespace
}  // namespace ctte::lab::usb

// Test-only harness around one encoder image (rtl/ctte_image_abi.h): dlopen()s the .so, drives
// the two clocks from an integer time base, drives beats and register accesses on the fabric
// clock, and collects the bytes the sink accepts. The real board (lab/sim/) is separate; this
// one exists so that rtl/ can be tested on its own.
//
// Clocking: the fabric and sink clocks have integer periods (time units); at each event time
// every clock due toggles and one eval() applies all of them (coincident edges share it). A
// byte is taken at a sink rising edge when sink_valid and sink_ready were both 1 just before it.
// Used from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "regmap/registers.h"  // register offsets and fields: reg::kTeControl, ...
#include "rtl/ctte_image_abi.h"

namespace ctte::rtl_test {

/// trTeControl value: Active, Enable, InstTracing as given, mode, sync mode and max.
uint32_t ControlWord(bool enable, bool tracing, uint32_t mode, uint32_t sync_mode = 0,
                     uint32_t sync_max = 0);

class ImageHarness {
 public:
  struct Options {
    uint32_t fabric_period = 10;  ///< even (time units)
    uint32_t sink_period = 10;    ///< even (time units)
    uint64_t seed = 1;
  };

  /// Loads the image at `path`; on failure returns nullptr and sets *error.
  static std::unique_ptr<ImageHarness> Load(const std::string& path, const Options& options,
                                            std::string* error);
  ~ImageHarness();
  ImageHarness(const ImageHarness&) = delete;
  ImageHarness& operator=(const ImageHarness&) = delete;

  const ctte_image_table& table() const { return *table_; }
  ctte_model* model() const { return model_; }

  /// Holds reset for `cycles` fabric cycles, then releases it.
  void Reset(int cycles = 4);
  /// Advances time until one fabric rising edge has been evaluated.
  void FabricCycle();
  void Idle(int cycles);
  /// Drives `beat` (valid forced to 1) for one fabric cycle.
  void Beat(ctte_ingress beat);
  void WriteReg(uint32_t addr, uint32_t value);
  uint32_t ReadReg(uint32_t addr);
  /// Runs fabric cycles until trTeEmpty reads 1 (or `max_cycles`); returns whether it did.
  bool Drain(int max_cycles = 100000);

  /// Decides sink_ready before each sink rising edge; default: always ready.
  void set_sink_ready(std::function<bool()> policy) { ready_policy_ = std::move(policy); }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  uint64_t fabric_cycles() const { return fabric_cycles_; }
  bool failed() const { return table_->failed(model_) != 0; }
  std::string failure() const { return table_->failure_message(model_); }

 private:
  ImageHarness() = default;
  void Step();

  void* handle_ = nullptr;
  const ctte_image_table* table_ = nullptr;
  ctte_model* model_ = nullptr;
  Options options_;
  uint64_t now_ = 0;
  uint64_t next_fabric_ = 0;
  uint64_t next_sink_ = 0;
  int fabric_level_ = 0;
  int sink_level_ = 0;
  bool ready_ = true;
  uint64_t fabric_cycles_ = 0;
  std::function<bool()> ready_policy_;
  std::vector<uint8_t> bytes_;
};

/// Path of a built image, e.g. ImagePath("ntrace-slim").
std::string ImagePath(const std::string& name);

}  // namespace ctte::rtl_test

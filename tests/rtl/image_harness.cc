#include "tests/rtl/image_harness.h"

#include <dlfcn.h>

#include <algorithm>

namespace ctte::rtl_test {

uint32_t ControlWord(bool enable, bool tracing, uint32_t mode, uint32_t sync_mode,
                     uint32_t sync_max) {
  return reg::kActive | (enable ? reg::kEnable : 0u) | (tracing ? reg::kInstTracing : 0u) |
         reg::Control(static_cast<uint8_t>(mode), static_cast<uint8_t>(sync_mode),
                      static_cast<uint8_t>(sync_max));
}

std::string ImagePath(const std::string& name) {
  return std::string(CTTE_BINARY_DIR) + "/images/" + name + ".so";
}

std::unique_ptr<ImageHarness> ImageHarness::Load(const std::string& path, const Options& options,
                                                 std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = path + ": dlopen failed: " + dlerror();
    return nullptr;
  }
  using GetFn = const ctte_image_table* (*)();
  auto get = reinterpret_cast<GetFn>(dlsym(handle, "ctte_image_get"));
  if (get == nullptr) {
    *error = path + ": no symbol ctte_image_get";
    dlclose(handle);
    return nullptr;
  }
  const ctte_image_table* table = get();
  if (table == nullptr || table->abi_version != CTTE_IMAGE_ABI_VERSION) {
    *error = path + ": image ABI version mismatch";
    dlclose(handle);
    return nullptr;
  }
  std::unique_ptr<ImageHarness> h(new ImageHarness());
  h->handle_ = handle;
  h->table_ = table;
  h->options_ = options;
  h->model_ = table->create(options.seed);
  h->next_fabric_ = options.fabric_period / 2;
  h->next_sink_ = options.sink_period / 2;
  ctte_ingress idle{};
  table->set_ingress(h->model_, &idle);
  table->set_reg_bus(h->model_, 0, 0, 0);
  table->set_sink_ready(h->model_, 1);
  table->eval(h->model_, 0, 0);
  return h;
}

ImageHarness::~ImageHarness() {
  if (model_ != nullptr) table_->destroy(model_);
  if (handle_ != nullptr) dlclose(handle_);
}

void ImageHarness::Step() {
  now_ = std::min(next_fabric_, next_sink_);
  bool fabric_rise = false;
  bool sink_rise = false;
  if (next_fabric_ == now_) {
    fabric_level_ ^= 1;
    fabric_rise = fabric_level_ == 1;
    next_fabric_ += options_.fabric_period / 2;
  }
  if (next_sink_ == now_) {
    sink_level_ ^= 1;
    sink_rise = sink_level_ == 1;
    next_sink_ += options_.sink_period / 2;
    if (sink_level_ == 1 && ready_ && table_->sink_valid(model_)) {
      bytes_.push_back(table_->sink_data(model_));
    }
  }
  table_->eval(model_, fabric_level_, sink_level_);
  if (sink_rise) {
    // After a sink rising edge: choose ready for the next one.
    ready_ = ready_policy_ ? ready_policy_() : true;
    table_->set_sink_ready(model_, ready_ ? 1 : 0);
  }
  if (fabric_rise) ++fabric_cycles_;
}

void ImageHarness::FabricCycle() {
  const uint64_t before = fabric_cycles_;
  while (fabric_cycles_ == before) Step();
}

void ImageHarness::Idle(int cycles) {
  for (int i = 0; i < cycles; ++i) FabricCycle();
}

void ImageHarness::Reset(int cycles) {
  table_->set_reset_n(model_, 0);
  Idle(cycles);
  table_->set_reset_n(model_, 1);
  Idle(1);
}

void ImageHarness::Beat(ctte_ingress beat) {
  beat.valid = 1;
  table_->set_ingress(model_, &beat);
  FabricCycle();
  ctte_ingress idle{};
  table_->set_ingress(model_, &idle);
}

void ImageHarness::WriteReg(uint32_t addr, uint32_t value) {
  table_->set_reg_bus(model_, 1, addr, value);
  FabricCycle();
  table_->set_reg_bus(model_, 0, addr, 0);
}

uint32_t ImageHarness::ReadReg(uint32_t addr) {
  table_->set_reg_bus(model_, 0, addr, 0);
  table_->eval(model_, fabric_level_, sink_level_);
  return table_->reg_rdata(model_);
}

bool ImageHarness::Drain(int max_cycles) {
  for (int i = 0; i < max_cycles; ++i) {
    if (ReadReg(reg::kTeControl) & reg::kEmpty) return true;
    FabricCycle();
  }
  return (ReadReg(reg::kTeControl) & reg::kEmpty) != 0;
}

}  // namespace ctte::rtl_test

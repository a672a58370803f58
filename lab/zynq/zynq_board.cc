// ZynqBoard (see zynq_board.h and docs/zynq-board.md).
#include "lab/zynq/zynq_board.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "base/files.h"
#include "base/sha256.h"
#include "base/text.h"
#include "lab/zynq/plan_block.h"
#include "lab/zynq/sysfs.h"

namespace ctte::lab::zynq {

namespace {

using Clock = std::chrono::steady_clock;

bool SafeName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return s[0] != '.';
}

}  // namespace

Result<std::unique_ptr<ZynqBoard>> ZynqBoard::Create(const ZynqBoardOptions& options) {
  std::unique_ptr<ZynqBoard> b(new ZynqBoard(options));
  if (b->o_.serial.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    b->o_.serial = std::string("zynq-") + host;
  }
  if (!std::filesystem::is_directory(b->o_.sysroot)) {
    return Status::InvalidArgument("--sysroot " + b->o_.sysroot + ": not a directory");
  }
  return b;
}

ZynqBoard::~ZynqBoard() = default;

std::string ZynqBoard::Path(const std::string& rel) const { return UnderRoot(o_.sysroot, rel); }

void ZynqBoard::Unload() {
  regs_.reset();
  guest_.reset();
  plan_.reset();
  map_.clear();
  image_name_.clear();
  image_sha256_.clear();
}

Result<BoardIdentity> ZynqBoard::Identify() {
  BoardIdentity id;
  id.kind = "zynq";
  id.serial = o_.serial;
#ifdef CTTE_VERSION
  id.version = CTTE_VERSION;
#else
  id.version = "ctte_lab_zynq";
#endif
  id.capabilities = {"deploy", "pll:fabric", "pll:sink", "registers", "run"};
  id.image_name = image_name_;
  id.image_sha256 = image_sha256_;
  // The capture ring a plan may ask for: the u-dma-buf (DDR) window the DMA sink writes into,
  // at most 2^32-1 (cttehRingSize is 32 bits). Unreadable: not reported (Run() says why).
  Result<uint64_t> dma = ReadAttrU64(Path("sys/class/u-dma-buf/" + o_.udmabuf + "/size"));
  id.max_ring_bytes = dma.ok() ? std::min<uint64_t>(*dma, 0xffffffffu) : 0;
  return id;
}

Status ZynqBoard::LoadBitstream(const std::string& file_name) {
  const std::string mgr = Path("sys/class/fpga_manager/" + o_.fpga_manager);
  CTTE_RETURN_IF_ERROR(WriteAttr(mgr + "/flags", "0"));  // 0: a full bitstream
  CTTE_RETURN_IF_ERROR(WriteAttr(mgr + "/firmware", file_name));
  if (o_.emulated_fabric) {
    // The kernel loads within the write; the emulator takes the request (empties the file).
    const auto deadline = Clock::now() + std::chrono::milliseconds(o_.load_timeout_ms);
    for (;;) {
      Result<std::string> pending = ReadAttr(mgr + "/firmware");
      if (pending.ok() && pending->empty()) break;
      if (Clock::now() > deadline) {
        return Status::Unavailable(mgr + "/firmware: the fabric emulator did not take '" +
                                   file_name + "' within " + std::to_string(o_.load_timeout_ms) +
                                   " ms");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  CTTE_ASSIGN_OR_RETURN(const std::string state, ReadAttr(mgr + "/state"));
  if (state != "operating") {
    return Status::IOError("FPGA manager " + mgr + " reports state '" + state +
                           "' after loading " + file_name + " (expected 'operating')");
  }
  return Status::Ok();
}

Result<std::unique_ptr<MmapWindow>> ZynqBoard::OpenMap(size_t index, const char* what) {
  CTTE_ASSIGN_OR_RETURN(const UioDevice dev, FindUio(o_.sysroot, o_.uio_name));
  if (index >= dev.maps.size()) {
    return Status::NotFound("UIO device " + dev.device + " (" + o_.uio_name + ") has no map" +
                            std::to_string(index) + " (" + what + ")");
  }
  const uint64_t size = dev.maps[index].size;
  if (o_.emulated_fabric) {
    return MmapWindow::Open(dev.device + ".map" + std::to_string(index), 0, size);
  }
  // UIO: map i is mmap()ed at offset i * page size of /dev/uioN.
  return MmapWindow::Open(dev.device, index * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)), size);
}

Status ZynqBoard::OpenDesign() {
  CTTE_ASSIGN_OR_RETURN(const UioDevice dev, FindUio(o_.sysroot, o_.uio_name));
  if (dev.maps.size() < 3) {
    return Status::NotFound("UIO device " + dev.device + " (" + o_.uio_name + ") has " +
                            std::to_string(dev.maps.size()) +
                            " maps; the design declares 3 (registers, guest memory, plan memory)");
  }
  if (o_.emulated_fabric) {
    CTTE_ASSIGN_OR_RETURN(regs_, MailboxWindow::Open(dev.device + ".map0", o_.register_timeout_ms));
  } else {
    if (!std::filesystem::exists(dev.device)) {
      return Status::NotFound("UIO device node " + dev.device + " is missing");
    }
    CTTE_ASSIGN_OR_RETURN(regs_, OpenMap(0, "registers"));
  }
  CTTE_ASSIGN_OR_RETURN(guest_, OpenMap(1, "guest memory"));
  CTTE_ASSIGN_OR_RETURN(plan_, OpenMap(2, "plan memory"));
  return Status::Ok();
}

Result<DeployReceipt> ZynqBoard::Deploy(const DeployRequest& request) {
  std::vector<uint8_t> bytes = request.bytes;
  if (bytes.empty()) {
    CTTE_ASSIGN_OR_RETURN(bytes, ReadFileBytes(request.path));
  }
  const std::string name = request.name.empty() ? "image" : request.name;
  if (bytes.empty()) return Status::InvalidArgument("image " + name + ": empty");
  if (!SafeName(name)) return Status::InvalidArgument("image name '" + name + "': not a file name");
  if (request.registers.empty()) {
    return Status::InvalidArgument("image " + name + ": the deploy request carries no register "
                                   "map (manifest \"registers\"); a Zynq board addresses only "
                                   "registers the manifest declares");
  }
  Unload();
  const std::string file_name = "ctte-" + name + ".bin";
  const std::string stored = Path("lib/firmware/" + file_name);
  std::error_code ec;
  std::filesystem::create_directories(Path("lib/firmware"), ec);
  CTTE_RETURN_IF_ERROR(WriteFileAtomic(stored, bytes));
  stored_path_ = stored;
  CTTE_ASSIGN_OR_RETURN(const std::string sha, Sha256File(stored));  // over the stored copy
  if (!request.expected_sha256.empty() && sha != request.expected_sha256) {
    std::filesystem::remove(stored, ec);
    return Status::InvalidArgument("image " + name + " refused: SHA-256 of the stored copy " +
                                   stored + " is " + sha + ", the manifest's " +
                                   request.expected_sha256 + " (tampered or wrong bitstream); "
                                   "not loaded");
  }
  CTTE_RETURN_IF_ERROR(LoadBitstream(file_name));
  map_ = request.registers;
  if (Status s = OpenDesign(); !s.ok()) {
    Unload();
    return s;
  }
  DeployReceipt r;
  Result<uint64_t> bid = Named64("ctteBuildIdLo", "ctteBuildIdHi");
  Result<uint32_t> profile = bid.ok() ? Named("ctteProfile") : bid.status();
  Result<uint32_t> caps = profile.ok() ? Named("ctteCaps") : profile.status();
  if (!caps.ok()) {
    Unload();
    return WithPrefix(caps.status(), "image " + name + ": identity");
  }
  r.build_id = *bid;
  r.profile = *profile;
  r.caps = *caps;
  if (request.expected_build_id != 0 && r.build_id != request.expected_build_id) {
    Unload();
    return Status::InvalidArgument("image " + name + " refused: build id read back " +
                                   Hex64(r.build_id) + " differs from the manifest's " +
                                   Hex64(request.expected_build_id));
  }
  r.sha256 = sha;
  r.stored_path = stored;
  r.size = bytes.size();
  image_name_ = name;
  image_sha256_ = sha;
  return r;
}

// ---- clocks --------------------------------------------------------------------------------

Result<PlSourceRates> ZynqBoard::ReadSourceRates() const {
  PlSourceRates r;
  const auto rate = [&](const char* clk, uint64_t* out) -> Status {
    const std::string p = Path(std::string("sys/kernel/debug/clk/") + clk + "/clk_rate");
    if (!std::filesystem::exists(p)) return Status::Ok();  // that source is not offered
    CTTE_ASSIGN_OR_RETURN(*out, ReadAttrU64(p));
    return Status::Ok();
  };
  CTTE_RETURN_IF_ERROR(rate("iopll", &r.iopll_hz));
  CTTE_RETURN_IF_ERROR(rate("rpll", &r.rpll_hz));
  CTTE_RETURN_IF_ERROR(rate("dpll_to_lpd", &r.dpll_hz));
  if (r.iopll_hz == 0 && r.rpll_hz == 0 && r.dpll_hz == 0) {
    return Status::NotFound(Path("sys/kernel/debug/clk") +
                            ": no iopll, rpll or dpll_to_lpd clk_rate (is debugfs mounted?)");
  }
  return r;
}

Result<PlClockSetting> ZynqBoard::ReadClockSetting(ClockDomain domain) {
  if (!crl_) {
    CTTE_ASSIGN_OR_RETURN(crl_, MmapWindow::Open(Path("dev/mem"), kCrlApbBase, 0x1000));
  }
  const uint32_t off = domain == ClockDomain::kFabric ? kPl0RefCtrl : kPl1RefCtrl;
  CTTE_ASSIGN_OR_RETURN(const uint32_t v, crl_->Read32(off));
  Result<PlClockSetting> s = PlClockSetting::Decode(v);
  if (!s.ok()) return Status::Corruption(crl_->where() + " +" + HexShort(off) + ": " + s.status().message());
  return s;
}

Result<uint64_t> ZynqBoard::SetClock(ClockDomain domain, uint64_t hz) {
  CTTE_ASSIGN_OR_RETURN(const PlSourceRates rates, ReadSourceRates());
  CTTE_ASSIGN_OR_RETURN(const PlClockSetting want, ChoosePlClock(rates, hz));
  if (!crl_) {
    CTTE_ASSIGN_OR_RETURN(crl_, MmapWindow::Open(Path("dev/mem"), kCrlApbBase, 0x1000));
  }
  const uint32_t off = domain == ClockDomain::kFabric ? kPl0RefCtrl : kPl1RefCtrl;
  CTTE_ASSIGN_OR_RETURN(const uint32_t old, crl_->Read32(off));
  CTTE_RETURN_IF_ERROR(crl_->Write32(off, (old & ~kPlRefCtrlMask) | want.Encode()));
  return want.Rate(rates);  // the programmed (quantized) frequency; ReadClock reads it back
}

Result<uint64_t> ZynqBoard::ReadClock(ClockDomain domain) {
  CTTE_ASSIGN_OR_RETURN(const PlClockSetting s, ReadClockSetting(domain));
  CTTE_ASSIGN_OR_RETURN(const PlSourceRates rates, ReadSourceRates());
  return s.Rate(rates);
}

// ---- registers -----------------------------------------------------------------------------

Result<uint32_t> ZynqBoard::Offset(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) {
    return Status::NotFound("register " + name + " is not declared by image " + image_name_ +
                            "'s register map (manifest \"registers\")");
  }
  return it->second;
}

Status ZynqBoard::CheckDeclared(uint32_t offset) const {
  if (!regs_) return Status::Unavailable("no image deployed");
  for (const auto& [name, off] : map_) {
    if (off == offset) return Status::Ok();
  }
  return Status::NotFound("register " + HexShort(offset) + " is not declared by image " +
                          image_name_ + "'s register map: the design has no register there "
                          "(absent, not 0)");
}

Result<uint32_t> ZynqBoard::Named(const std::string& name) {
  CTTE_ASSIGN_OR_RETURN(const uint32_t off, Offset(name));
  Result<uint32_t> v = regs_->Read32(off);
  if (!v.ok()) return WithPrefix(v.status(), name);
  return v;
}

Result<uint64_t> ZynqBoard::Named64(const std::string& lo, const std::string& hi) {
  CTTE_ASSIGN_OR_RETURN(const uint32_t l, Named(lo));
  CTTE_ASSIGN_OR_RETURN(const uint32_t h, Named(hi));
  return static_cast<uint64_t>(h) << 32 | l;
}

Status ZynqBoard::SetNamed(const std::string& name, uint32_t value) {
  CTTE_ASSIGN_OR_RETURN(const uint32_t off, Offset(name));
  return regs_->Write32(off, value);
}

Status ZynqBoard::WriteReg(uint32_t offset, uint32_t value) {
  CTTE_RETURN_IF_ERROR(CheckDeclared(offset));
  return regs_->Write32(offset, value);
}

Result<uint32_t> ZynqBoard::ReadReg(uint32_t offset) {
  CTTE_RETURN_IF_ERROR(CheckDeclared(offset));
  return regs_->Read32(offset);
}

}  // namespace ctte::lab::zynq

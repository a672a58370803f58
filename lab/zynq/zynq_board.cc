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
#include "lab/zynq/clock_measure.h"
#include "lab/zynq/overlay.h"
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

OverlayOptions ZynqBoard::Overlay() const {
  OverlayOptions ov;
  ov.sysroot = o_.sysroot;
  ov.name = o_.overlay_name;
  ov.dtbo = o_.overlay_dtbo;
  ov.timeout_ms = o_.load_timeout_ms;
  return ov;
}

Status ZynqBoard::LoadDesign() {
  const std::string mgr = Path("sys/class/fpga_manager/" + o_.fpga_manager);
  Status applied = ApplyOverlay(Overlay());
  Result<std::string> state = ReadAttr(mgr + "/state");
  // A load that failed shows in the FPGA manager's state ("write error", ...); an overlay
  // that never reached the FPGA manager leaves it as it was ("unknown" on a fresh board).
  const bool load_failed = state.ok() && *state != "operating" && *state != "unknown";
  if (applied.ok() ? (!state.ok() || *state != "operating") : load_failed) {
    return Status::IOError("FPGA manager " + mgr + " reports state '" +
                           (state.ok() ? *state : state.status().ToString()) +
                           "' after applying overlay " + o_.overlay_dtbo + " (expected "
                           "'operating')" + (applied.ok() ? "" : ": " + applied.message()));
  }
  return applied;
}

Result<std::unique_ptr<MmapWindow>> ZynqBoard::OpenMap(const std::string& uio, const char* what) {
  CTTE_ASSIGN_OR_RETURN(const UioDevice dev, FindUio(o_.sysroot, uio));
  if (dev.maps.empty()) {
    return Status::NotFound("UIO device " + dev.device + " (" + uio + ", " + what +
                            ") has no map0");
  }
  if (!std::filesystem::exists(dev.device)) {
    return Status::NotFound("UIO device node " + dev.device + " (" + uio + ") is missing");
  }
  // One map per device (the overlay's nodes each declare one reg range): map0 at offset 0.
  return MmapWindow::Open(dev.device, 0, dev.maps[0].size);
}

Status ZynqBoard::OpenDesign() {
  if (o_.emulated_fabric) {
    CTTE_ASSIGN_OR_RETURN(const UioDevice dev, FindUio(o_.sysroot, o_.uio_name));
    CTTE_ASSIGN_OR_RETURN(regs_, MailboxWindow::Open(dev.device, o_.register_timeout_ms));
  } else {
    CTTE_ASSIGN_OR_RETURN(regs_, OpenMap(o_.uio_name, "registers"));
  }
  CTTE_ASSIGN_OR_RETURN(guest_, OpenMap(o_.guest_uio, "guest memory"));
  CTTE_ASSIGN_OR_RETURN(plan_, OpenMap(o_.plan_uio, "plan memory"));
  return Status::Ok();
}

Result<DeployReceipt> ZynqBoard::Deploy(const DeployRequest& request) {
  // The image's digest may be told back only when the client sent the bytes.
  const bool sent = !request.bytes.empty();
  std::vector<uint8_t> bytes = request.bytes;
  if (!sent) {
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
  // The previous overlay goes first (its devices with it), then the bitstream is replaced.
  CTTE_RETURN_IF_ERROR(RemoveOverlay(Overlay()));
  const std::string stored = Path(std::string("lib/firmware/") + kHarnessFirmware);
  std::error_code ec;
  std::filesystem::create_directories(Path("lib/firmware"), ec);
  CTTE_RETURN_IF_ERROR(WritePrivateFile(stored, bytes));
  stored_path_ = stored;
  Result<DeployReceipt> r = LoadVerified(request, name, sent);
  if (!r.ok()) {
    Unload();
    (void)RemoveOverlay(Overlay());
    std::filesystem::remove(stored, ec);  // never left behind by a failed deploy
    return r.status();
  }
  r->size = bytes.size();
  image_name_ = name;
  image_sha256_ = r->sha256;
  return r;
}

Result<DeployReceipt> ZynqBoard::LoadVerified(const DeployRequest& request,
                                              const std::string& name, bool sent) {
  CTTE_ASSIGN_OR_RETURN(const std::string sha, Sha256File(stored_path_));  // the stored copy
  if (!request.expected_sha256.empty() && sha != request.expected_sha256) {
    return Status::InvalidArgument("image " + name + " refused: SHA-256 of the stored copy " +
                                   stored_path_ + " is " + (sent ? sha : "not the manifest's") +
                                   ", the manifest's " + request.expected_sha256 +
                                   " (tampered or wrong bitstream); not loaded");
  }
  CTTE_RETURN_IF_ERROR(LoadDesign());
  map_ = request.registers;
  CTTE_RETURN_IF_ERROR(OpenDesign());
  DeployReceipt r;
  Result<uint64_t> bid = Named64("ctteBuildIdLo", "ctteBuildIdHi");
  Result<uint32_t> profile = bid.ok() ? Named("ctteProfile") : bid.status();
  Result<uint32_t> caps = profile.ok() ? Named("ctteCaps") : profile.status();
  if (!caps.ok()) return WithPrefix(caps.status(), "image " + name + ": identity");
  r.build_id = *bid;
  r.profile = *profile;
  r.caps = *caps;
  if (request.expected_build_id != 0 && r.build_id != request.expected_build_id) {
    return Status::InvalidArgument("image " + name + " refused: build id read back " +
                                   Hex64(r.build_id) + " differs from the manifest's " +
                                   Hex64(request.expected_build_id));
  }
  r.sha256 = sha;
  r.stored_path = stored_path_;
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

// Measured, never decoded: the harness's free-running counter of that clock over a timed
// window (lab/zynq/clock_measure.h). The register says what was asked for; a gated clock, a
// source that is not running, or a write the PMU firmware ignored shows only here.
Result<uint64_t> ZynqBoard::ReadClock(ClockDomain domain) {
  const bool fabric = domain == ClockDomain::kFabric;
  if (!regs_) {
    return Status::Unavailable(std::string("no image deployed: the ") +
                               (fabric ? "fabric" : "sink") + " clock is measured by the "
                               "harness's cycle counter, which only a loaded design has");
  }
  const std::string lo = fabric ? "cttehFabricClockLo" : "cttehSinkClockLo";
  const std::string hi = fabric ? "cttehFabricClockHi" : "cttehSinkClockHi";
  const auto read = [&](const std::function<void()>& mark) {
    return ReadCounter64([&](bool h) { return Named(h ? hi : lo); }, mark);
  };
  CTTE_ASSIGN_OR_RETURN(const ClockMeasurement m,
                        MeasureClock(read, fabric ? "the fabric clock (PL0)" : "the sink clock (PL1)",
                                     o_.clock_measure));
  return m.hz;
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

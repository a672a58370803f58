// The fabric emulator's kernel side: configfs overlay folders, applying the harness overlay
// (its .dtbo parsed), loading the bitstream it names, the UIO devices of its nodes (see
// fabric_emulator.h).
#include <algorithm>
#include <optional>

#include "base/sha256.h"
#include "lab/image_manifest.h"
#include "lab/zynq/sysfs.h"
#include "tests/lab/zynq/fabric_emulator_impl.h"
#include "tests/lab/zynq/fdt.h"

namespace ctte::lab::zynq {

// One generic-uio node of an applied overlay: sys/class/uio/uioN (name = the node's name,
// maps/map0 = its reg range) and the node dev/uioN. The register file is the mailbox (or, with
// register_mailbox false, a plain shared file holding the design's identity registers).
Status FabricEmulator::Impl::CreateUio(int index, const std::string& name, uint64_t size) {
  const std::string u = "sys/class/uio/uio" + std::to_string(index) + "/";
  const std::string dev = P("dev/uio" + std::to_string(index));
  CTTE_RETURN_IF_ERROR(WriteText(P(u + "name"), name + "\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(u + "maps/map0/name"), name + "\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(u + "maps/map0/size"), HexAttr(size) + "\n"));
  if (name == o.uio_name && o.register_mailbox) {
    CTTE_ASSIGN_OR_RETURN(mailbox, MailboxServer::Create(dev, static_cast<uint32_t>(size)));
    return Status::Ok();
  }
  CTTE_RETURN_IF_ERROR(SparseFile(dev, size));
  CTTE_ASSIGN_OR_RETURN(std::unique_ptr<MmapWindow> w, MmapWindow::Open(dev, 0, size));
  if (name == o.uio_name) {  // no side effects: only what reads the same every time
    for (const auto& [off, reg] : names) {
      if (reg.rfind("ctte", 0) != 0 || reg.rfind("ctteh", 0) == 0) continue;
      Result<uint32_t> v = board->ReadReg(off);
      if (v.ok()) CTTE_RETURN_IF_ERROR(w->Write32(off, *v));
    }
  } else if (name == "ctte_guest") {
    guest = std::move(w);
  } else if (name == "ctte_plan") {
    plan = std::move(w);
  }
  return Status::Ok();
}

void FabricEmulator::Impl::RemoveDevices(const std::vector<int>& uio) {
  std::error_code ec;
  for (int i : uio) {
    fs::remove_all(P("sys/class/uio/uio" + std::to_string(i)), ec);
    fs::remove(P("dev/uio" + std::to_string(i)), ec);
  }
  if (!uio.empty()) {
    mailbox.reset();
    guest.reset();
    plan.reset();
  }
}

// What the kernel does for `echo <dtbo> > path`: reads lib/firmware/<dtbo>, and for an overlay
// whose fragment sets an fpga-region's firmware-name, loads that bitstream (the FPGA manager's
// state follows) and creates a UIO device for each generic-uio node. Anything else: refused.
Status FabricEmulator::Impl::ApplyOverlay(const std::string& name, const std::string& dtbo,
                                          std::vector<int>* uio) {
  const std::string file = P("lib/firmware/" + dtbo);
  CTTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> blob, ReadFileBytes(file));
  CTTE_ASSIGN_OR_RETURN(const FdtNode root, ParseFdt(blob, file));
  std::string firmware;
  std::vector<std::pair<std::string, uint64_t>> nodes;
  for (const FdtNode& frag : root.children) {
    for (const FdtNode& ov : frag.children) {
      if (ov.name != "__overlay__") continue;
      if (!ov.String("firmware-name").empty()) firmware = ov.String("firmware-name");
      const std::vector<uint32_t> ac = ov.Cells("#address-cells"), sc = ov.Cells("#size-cells");
      const size_t na = ac.empty() ? 2 : ac[0], ns = sc.empty() ? 1 : sc[0];
      for (const FdtNode& n : ov.children) {
        if (n.String("compatible") != "generic-uio") continue;
        const std::vector<uint32_t> reg = n.Cells("reg");
        if (ns < 1 || ns > 2 || reg.size() != na + ns) {
          return Status::InvalidArgument(file + ": node " + n.name + ": reg is not one range");
        }
        uint64_t size = 0;
        for (size_t i = na; i < reg.size(); ++i) size = size << 32 | reg[i];
        nodes.emplace_back(n.name.substr(0, n.name.find('@')), size);
      }
    }
  }
  if (firmware.empty()) {
    return Status::InvalidArgument(file + ": overlay " + name + " sets no fpga-region "
                                   "firmware-name: nothing to load");
  }
  CTTE_RETURN_IF_ERROR(Load(firmware));
  if (!o.create_uio) return Status::Ok();
  int next = 0;
  for (const auto& [_, devs] : overlays) {
    for (int i : devs) next = std::max(next, i + 1);
  }
  for (const auto& [node, size] : nodes) {
    CTTE_RETURN_IF_ERROR(CreateUio(next, node, size));
    uio->push_back(next++);
  }
  return Status::Ok();
}

Status FabricEmulator::Impl::Load(const std::string& name) {
  const std::string mgr = P("sys/class/fpga_manager/fpga0/");
  const auto failed = [&](const std::string& state, const Status& s) {
    (void)WriteText(mgr + "state", state + "\n");
    return s;
  };
  const std::string file = P("lib/firmware/" + name);
  Result<std::string> sha = Sha256File(file);
  if (!sha.ok()) return failed("firmware request error", sha.status());
  std::optional<ImageManifest> manifest;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(o.image_dir, ec)) {
    const std::string p = e.path().string();
    if (p.size() < 14 || p.substr(p.size() - 14) != ".manifest.json") continue;
    Result<ImageManifest> m = ImageManifest::Load(p);
    if (m.ok() && m->sha256 == *sha) manifest = *m;
  }
  if (!manifest || manifest->registers.empty()) {
    return failed("write error", Status::NotFound(name + ": no manifest with a register map "
                                                  "for sha256 " + *sha));
  }
  DeployRequest d;
  d.name = manifest->name;
  d.path = file;
  Result<DeployReceipt> r = board->Deploy(d);
  if (!r.ok()) return failed("write error", r.status());
  names.clear();
  for (const auto& [n, off] : manifest->registers) names[off] = n;
  harness.clear();
  (void)WriteText(mgr + "state", o.load_state + "\n");
  if (o.load_state != "operating") {
    return Status::IOError("FPGA manager state '" + o.load_state + "' after the load");
  }
  return Status::Ok();
}

// configfs as the kernel keeps it: a new folder gets path/dtbo/status; a `path` written to an
// unapplied folder is applied (or refused: path emptied, as the failed write leaves it); a
// folder that is gone, or was re-created, takes its devices with it.
void FabricEmulator::Impl::WatchOverlays() {
  const std::string dir = P(kOverlays);
  std::error_code ec;
  for (auto it = overlays.begin(); it != overlays.end();) {
    if (!fs::exists(dir + "/" + it->first + "/status", ec)) {
      RemoveDevices(it->second);
      it = overlays.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // a folder on its way out (ZynqBoard's rename)
    const std::string d = e.path().string();
    if (!fs::exists(d + "/status", ec)) {
      (void)WriteText(d + "/path", "");
      (void)WriteText(d + "/dtbo", "");
      (void)WriteText(d + "/status", "unapplied\n");
      continue;
    }
    if (overlays.count(name) != 0) continue;
    Result<std::string> path = ReadAttr(d + "/path");
    if (!path.ok() || path->empty()) continue;
    std::vector<int> uio;
    Status s = ApplyOverlay(name, *path, &uio);
    if (!s.ok()) {
      Fail(s.ToString());
      RemoveDevices(uio);
      (void)WriteText(d + "/path", "");
      continue;
    }
    overlays[name] = uio;
    (void)WriteText(d + "/status", "applied\n");
  }
}

}  // namespace ctte::lab::zynq

// ImageManifest: JSON loading (nlohmann adapter) and receipt comparison.
#include "lab/image_manifest.h"

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/json.h"
#include "base/text.h"
#include "lab/wire.h"

namespace ctte::lab {

namespace {
using wire::Json;

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}
}  // namespace

Result<ImageManifest> ImageManifest::Load(const std::string& path) {
  // Duplicate keys, out-of-range numbers, a BOM, non-regular files: refused with path and offset.
  Result<nlohmann::ordered_json> parsed = ParseJsonFile(path);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) return Status::Corruption(path + ": not a JSON object");
  const Json j = *parsed;
  ImageManifest m;
  m.manifest_path = path;
  const auto err = [&](const Status& s) { return Status::InvalidArgument(path + ": " + s.message()); };
  Status s = wire::GetStr(j, "", "name", &m.name);
  if (s.ok()) s = wire::GetStr(j, "", "sha256", &m.sha256);
  if (!s.ok()) return err(s);
  if (m.sha256.size() != 64) return err(Status::InvalidArgument("sha256: expected 64 hex digits"));
  // The keys are the ones rtl/cmake/write_manifest.cmake writes (docs/rtl.md); nothing else.
  const Json* bid = j.contains("build_id") ? &j["build_id"] : nullptr;
  if (bid == nullptr) return err(Status::InvalidArgument("build_id: missing"));
  if (bid->is_string()) {
    Result<uint64_t> b = wire::ParseHexU64(bid->get<std::string>(), "build_id");
    if (!b.ok()) return err(b.status());
    m.build_id = *b;
  } else if (bid->is_number_unsigned()) {
    m.build_id = bid->get<uint64_t>();
  } else {
    return err(Status::InvalidArgument("build_id: expected a hex string"));
  }
  if (j.contains("profile")) {
    m.profile = j["profile"].is_string() ? j["profile"].get<std::string>() : j["profile"].dump();
  }
  s = wire::GetU64(j, "", "caps", &m.caps, /*required=*/false);
  if (s.ok()) s = wire::GetU32(j, "", "xlen", &m.xlen, /*required=*/false);
  if (s.ok()) s = wire::GetU32(j, "", "return_stack_depth", &m.return_stack_depth, false);
  if (s.ok()) s = wire::GetU32(j, "", "feature_caps", &m.feature_caps, false);
  if (s.ok()) s = wire::GetStr(j, "", "rtl_digest", &m.rtl_digest, /*required=*/false);
  if (s.ok()) s = wire::GetStr(j, "", "verilator_version", &m.verilator_version, false);
  std::string file = m.name + ".so";
  if (s.ok()) s = wire::GetStr(j, "", "image", &file, /*required=*/false);
  if (!s.ok()) return err(s);
  // The closure gate compares the fabric clock with fmax, so an fmax that is absent, not a
  // number, zero or negative would silently switch the gate off: it is an error.
  if (!j.contains("fmax_mhz")) return err(Status::InvalidArgument("fmax_mhz: missing"));
  const Json& fmax = j["fmax_mhz"];
  if (!fmax.is_number() || !(fmax.get<double>() > 0)) {
    return err(Status::InvalidArgument("fmax_mhz: expected a positive number of MHz, got " +
                                       fmax.dump()));
  }
  m.fmax_mhz = fmax.get<double>();
  if (j.contains("registers")) {
    const Json& regs = j["registers"];
    if (!regs.is_object()) return err(Status::InvalidArgument("registers: expected an object"));
    for (auto it = regs.begin(); it != regs.end(); ++it) {
      uint64_t off = 0;
      if (it.value().is_string()) {
        Result<uint64_t> o = wire::ParseHexU64(it.value().get<std::string>(), "registers." + it.key());
        if (!o.ok()) return err(o.status());
        off = *o;
      } else if (it.value().is_number_unsigned()) {
        off = it.value().get<uint64_t>();
      } else {
        return err(Status::InvalidArgument("registers." + it.key() + ": expected a hex offset"));
      }
      if (off > 0xffffffffu || off % 4 != 0) {
        return err(Status::InvalidArgument("registers." + it.key() + ": offset " + Hex64(off) +
                                           " is not a 32-bit aligned offset"));
      }
      m.registers[it.key()] = static_cast<uint32_t>(off);
    }
  }
  m.image_path = (!file.empty() && file[0] == '/') ? file : DirName(path) + "/" + file;
  return m;
}

DeployRequest ImageManifest::ToDeployRequest() const {
  DeployRequest d;
  d.name = name;
  d.path = image_path;
  d.expected_sha256 = sha256;
  d.expected_build_id = build_id;
  d.registers = registers;
  return d;
}

Status CheckReceipt(const ImageManifest& m, const DeployReceipt& r) {
  if (r.sha256 != m.sha256) {
    return Status::InvalidArgument("image " + m.name + ": SHA-256 at the target " + r.sha256 +
                                   ", manifest " + m.sha256);
  }
  if (r.build_id != m.build_id) {
    return Status::InvalidArgument("image " + m.name + ": build id read back " +
                                   wire::HexU64(r.build_id) + ", manifest " +
                                   wire::HexU64(m.build_id));
  }
  return Status::Ok();
}

}  // namespace ctte::lab

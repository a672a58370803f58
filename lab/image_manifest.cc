// ImageManifest: JSON loading (nlohmann adapter) and receipt comparison.
#include "lab/image_manifest.h"

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "lab/wire.h"

namespace ctte::lab {

namespace {
using wire::Json;

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

const Json* FirstOf(const Json& j, std::initializer_list<const char*> keys, std::string* which) {
  for (const char* k : keys) {
    if (j.contains(k)) {
      *which = k;
      return &j[k];
    }
  }
  return nullptr;
}
}  // namespace

Result<ImageManifest> ImageManifest::Load(const std::string& path) {
  Result<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.status();
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption(path + ": not a JSON object");
  }
  ImageManifest m;
  m.manifest_path = path;
  const auto err = [&](const Status& s) { return Status::InvalidArgument(path + ": " + s.message()); };
  Status s = wire::GetStr(j, "", "name", &m.name);
  if (s.ok()) s = wire::GetStr(j, "", "sha256", &m.sha256);
  if (!s.ok()) return err(s);
  if (m.sha256.size() != 64) return err(Status::InvalidArgument("sha256: expected 64 hex digits"));
  std::string which;
  const Json* bid = FirstOf(j, {"build_id"}, &which);
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
  if (const Json* p = FirstOf(j, {"profile"}, &which)) {
    m.profile = p->is_string() ? p->get<std::string>() : p->dump();
  }
  if (const Json* c = FirstOf(j, {"caps", "capabilities", "capability_bits"}, &which)) {
    if (c->is_number_unsigned()) {
      m.caps = c->get<uint64_t>();
    } else if (c->is_string()) {
      Result<uint64_t> v = wire::ParseHexU64(c->get<std::string>(), which);
      if (!v.ok()) return err(v.status());
      m.caps = *v;
    }
  }
  if (const Json* x = FirstOf(j, {"xlen"}, &which); x != nullptr && x->is_number_unsigned()) {
    m.xlen = x->get<uint32_t>();
  }
  if (const Json* f = FirstOf(j, {"fmax_mhz", "fmax"}, &which); f != nullptr && f->is_number()) {
    m.fmax_mhz = f->get<double>();
  }
  if (const Json* r = FirstOf(j, {"rtl_digest", "rtl_sha256", "rtl_source_digest"}, &which);
      r != nullptr && r->is_string()) {
    m.rtl_digest = r->get<std::string>();
  }
  if (const Json* v = FirstOf(j, {"verilator_version", "verilator"}, &which);
      v != nullptr && v->is_string()) {
    m.verilator_version = v->get<std::string>();
  }
  std::string file = m.name + ".so";
  if (const Json* f = FirstOf(j, {"image", "file", "image_file", "path"}, &which);
      f != nullptr && f->is_string()) {
    file = f->get<std::string>();
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

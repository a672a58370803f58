// sysfs helpers (see sysfs.h).
#include "lab/zynq/sysfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "base/files.h"
#include "base/text.h"

namespace ctte::lab::zynq {

Status WithPrefix(const Status& s, const std::string& prefix) {
  const std::string m = prefix + ": " + s.message();
  switch (s.code()) {
    case Status::Code::kNotFound: return Status::NotFound(m);
    case Status::Code::kCorruption: return Status::Corruption(m);
    case Status::Code::kIOError: return Status::IOError(m);
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(m);
    case Status::Code::kTimeout: return Status::Timeout(m);
    case Status::Code::kUnavailable: return Status::Unavailable(m);
    default: return Status::Internal(m);
  }
}

std::string UnderRoot(const std::string& sysroot, const std::string& rel) {
  std::string root = sysroot.empty() ? "/" : sysroot;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::string r = rel;
  while (!r.empty() && r.front() == '/') r.erase(r.begin());
  return root == "/" ? "/" + r : root + "/" + r;
}

Result<std::string> ReadAttr(const std::string& path) {
  ReadLimits limits;
  Result<std::string> text = ReadFileText(path, limits);
  if (!text.ok()) return text.status();
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

Status WriteAttr(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(path, errno);
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (n < 0) return ErrnoStatus(path, err);
  if (static_cast<size_t>(n) != text.size()) {
    return Status::IOError(path + ": short write of '" + text + "'");
  }
  return Status::Ok();
}

Result<uint64_t> ReadAttrU64(const std::string& path) {
  CTTE_ASSIGN_OR_RETURN(const std::string text, ReadAttr(path));
  Result<uint64_t> v = text.rfind("0x", 0) == 0 ? ParseHex64(text, path) : ParseDecimal64(text, path);
  if (!v.ok()) return Status::Corruption(path + ": expected a number, read '" + text + "'");
  return *v;
}

Result<UioDevice> FindUio(const std::string& sysroot, const std::string& name) {
  const std::string cls = UnderRoot(sysroot, "sys/class/uio");
  std::error_code ec;
  std::vector<std::string> seen;
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(cls, ec)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const auto& dir : entries) {
    const std::string base = dir.filename().string();
    if (base.rfind("uio", 0) != 0) continue;
    Result<std::string> n = ReadAttr((dir / "name").string());
    if (!n.ok()) continue;
    seen.push_back(base + "=" + *n);
    if (*n != name) continue;
    UioDevice d;
    Result<uint64_t> idx = ParseDecimal64(base.substr(3), base);
    if (!idx.ok()) continue;
    d.index = static_cast<int>(*idx);
    d.device = UnderRoot(sysroot, "dev/" + base);
    for (int i = 0;; ++i) {
      const std::filesystem::path m = dir / "maps" / ("map" + std::to_string(i));
      if (!std::filesystem::exists(m / "size", ec)) break;
      UioMap map;
      CTTE_ASSIGN_OR_RETURN(map.size, ReadAttrU64((m / "size").string()));
      Result<std::string> mn = ReadAttr((m / "name").string());
      if (mn.ok()) map.name = *mn;
      d.maps.push_back(map);
    }
    return d;
  }
  std::string found;
  for (const std::string& s : seen) found += (found.empty() ? "" : ", ") + s;
  return Status::NotFound("no UIO device named '" + name + "' under " + cls + " (found: " +
                          (found.empty() ? "none" : found) +
                          "); is the design loaded and its device-tree overlay applied?");
}

}  // namespace ctte::lab::zynq

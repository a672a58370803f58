// Folder snapshots (see snapshot.h).
#include "tests/hostile/snapshot.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "tests/hostile/hostile.h"

namespace ctte::hostile {

namespace fs = std::filesystem;

std::map<std::string, Entry> Snapshot(const std::string& root) {
  std::map<std::string, Entry> out;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(root, ec))) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    struct stat st {};
    const std::string p = it->path().string();
    if (::lstat(p.c_str(), &st) != 0) continue;
    Entry e;
    e.mode = st.st_mode;
    e.size = static_cast<uintmax_t>(st.st_size);
    if (S_ISREG(st.st_mode)) {
      e.type = "file";
      if (st.st_size < (1 << 20)) e.content = ReadText(p);
    } else if (S_ISDIR(st.st_mode)) {
      e.type = "dir";
    } else if (S_ISLNK(st.st_mode)) {
      e.type = "symlink";
      e.content = fs::read_symlink(p, ec).string();
    } else {
      e.type = "other";
    }
    out[p.substr(root.size())] = e;
  }
  return out;
}

std::string DescribeChange(const std::map<std::string, Entry>& before,
                           const std::map<std::string, Entry>& after) {
  for (const auto& [p, e] : before) {
    auto it = after.find(p);
    if (it == after.end()) return "removed " + p;
    if (!(it->second == e)) return "changed " + p;
  }
  for (const auto& [p, e] : after) {
    if (!before.count(p)) return "created " + p;
  }
  return "";
}

}  // namespace ctte::hostile

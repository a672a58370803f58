// Folder snapshots for the hostile-input suite (see hostile.h): what a case may not change
// outside its folder (its victims) and in the shared fixtures.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ctte::hostile {

// One entry of a folder snapshot: type, mode, size and (for small files) content.
struct Entry {
  std::string type;
  unsigned mode = 0;
  uintmax_t size = 0;
  std::string content;
  bool operator==(const Entry& o) const {
    return type == o.type && mode == o.mode && size == o.size && content == o.content;
  }
};

/// Every entry under `root` (recursively, symlinks not followed), by its path below `root`.
std::map<std::string, Entry> Snapshot(const std::string& root);
/// "" when `after` equals `before`, else the first difference ("removed P", "changed P",
/// "created P").
std::string DescribeChange(const std::map<std::string, Entry>& before,
                           const std::map<std::string, Entry>& after);

}  // namespace ctte::hostile

// Small file helpers shared by every module: whole-file reads and atomic writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte {

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path);
Result<std::string> ReadFileText(const std::string& path);
/// Writes to PATH.tmp then renames, so a reader never sees half a file.
Status WriteFileAtomic(const std::string& path, const void* data, size_t size);
inline Status WriteFileAtomic(const std::string& path, const std::string& text) {
  return WriteFileAtomic(path, text.data(), text.size());
}
inline Status WriteFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  return WriteFileAtomic(path, bytes.data(), bytes.size());
}

}  // namespace ctte

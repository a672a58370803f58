// Where ctte-lab finds its board executable, images and workloads when no flag names them:
// relative to its own executable, so that the same binary works in the build tree and installed
// (docs/install.md). In the build tree (BUILD/bin/ctte-lab, BUILD/CMakeCache.txt beside bin/)
// they are BUILD/images and BUILD/workloads; installed (PREFIX/bin/ctte-lab) they are
// PREFIX/lib/ctte-lab/images and PREFIX/lib/ctte-lab/workloads (CTTE_INSTALL_PKGLIBDIR).
// ctte-board is always the ctte-board next to ctte-lab.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#ifndef CTTE_INSTALL_PKGLIBDIR
#define CTTE_INSTALL_PKGLIBDIR "lib/ctte-lab"
#endif

namespace ctte::cli {

/// The folder of this executable ("" when /proc/self/exe cannot be read).
inline std::string SelfDir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string self(buf, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/'));
}

/// The folder that holds images/ and workloads/: the build tree when this executable is in
/// BUILD/bin (BUILD/CMakeCache.txt exists), else PREFIX/lib/ctte-lab of an install.
inline std::string DataRoot() {
  const std::string bin = SelfDir();
  if (bin.empty()) return ".";
  const std::string up = bin.substr(0, bin.rfind('/'));
  std::error_code ec;
  if (std::filesystem::exists(up + "/CMakeCache.txt", ec)) return up;
  return up + "/" CTTE_INSTALL_PKGLIBDIR;
}

inline std::string DefaultImageDir() { return DataRoot() + "/images"; }
inline std::string DefaultWorkloadDir() { return DataRoot() + "/workloads"; }

/// ctte-board next to this executable.
inline std::string BoardPathNextToSelf() {
  const std::string bin = SelfDir();
  return bin.empty() ? std::string("ctte-board") : bin + "/ctte-board";
}

}  // namespace ctte::cli

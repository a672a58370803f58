// The Linux files a ZynqBoard reads and writes, every path under the board's root prefix
// (`--sysroot`, default "/"): sysfs attributes (FPGA manager, UIO, u-dma-buf), debugfs clock
// rates, device nodes. Errors name the full path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab::zynq {

/// `s` (not OK) with "prefix: " before its message, same code.
Status WithPrefix(const Status& s, const std::string& prefix);

/// "<sysroot>/<rel>" without doubled slashes ("/" + "sys/x" = "/sys/x").
std::string UnderRoot(const std::string& sysroot, const std::string& rel);

/// A sysfs attribute's text, trailing whitespace removed.
Result<std::string> ReadAttr(const std::string& path);
/// Writes `text` to an attribute (one write(2), as `echo text > path` does).
Status WriteAttr(const std::string& path, const std::string& text);
/// An attribute holding a number: "0x..." hex (UIO sizes, phys_addr) or decimal (clk_rate).
Result<uint64_t> ReadAttrU64(const std::string& path);

struct UioMap {
  std::string name;
  uint64_t size = 0;
};
struct UioDevice {
  int index = -1;           ///< N of /dev/uioN
  std::string device;       ///< <sysroot>/dev/uioN
  std::vector<UioMap> maps; ///< maps/map0, map1, ...
};
/// The UIO device whose sys/class/uio/uioN/name is `name`; NotFound naming what was searched.
Result<UioDevice> FindUio(const std::string& sysroot, const std::string& name);

}  // namespace ctte::lab::zynq

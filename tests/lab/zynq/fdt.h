// A flattened device tree (.dtb / .dtbo, devicetree specification v0.4 chapter 5) read into a
// tree of nodes, for the fabric emulator: it plays the kernel applying the harness overlay and
// needs the overlay's firmware-name and its generic-uio nodes. Every offset is bounds-checked;
// a malformed blob is Corruption naming the byte offset.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab::zynq {

struct FdtNode {
  std::string name;  ///< "ctte_harness@a0000000"; "" for the root
  std::map<std::string, std::vector<uint8_t>> props;
  std::vector<FdtNode> children;

  /// A string property ("compatible", "firmware-name"): its first string, or "".
  std::string String(const std::string& prop) const;
  /// A property of 32-bit big-endian cells.
  std::vector<uint32_t> Cells(const std::string& prop) const;
};

Result<FdtNode> ParseFdt(const std::vector<uint8_t>& blob, const std::string& where);

}  // namespace ctte::lab::zynq

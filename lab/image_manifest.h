// An encoder image's manifest (build/images/<name>.manifest.json, written by rtl/ at build time):
// what the image claims to be. Deploy receipts are compared with it: the SHA-256 computed at the
// target must equal `sha256`, and the build id read back from the design must equal `build_id`.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "lab/board.h"

namespace ctte::lab {

struct ImageManifest {
  std::string name;            ///< profile name, e.g. "ntrace-slim"
  std::string sha256;          ///< of the image file
  uint64_t build_id = 0;
  std::string profile;
  uint64_t caps = 0;           ///< capability bits (ctteCaps)
  /// Implicit-return stack depth compiled into the image ("return_stack_depth"; 0 = absent,
  /// docs/encoder-behaviour.md section 11).
  uint32_t return_stack_depth = 0;
  /// ctteFeatureCaps of the image ("feature_caps"; 0 when absent): the compiled features.
  uint32_t feature_caps = 0;
  uint32_t xlen = 0;
  double fmax_mhz = 0;         ///< declared fmax (closure gate); > 0 once loaded
  std::string rtl_digest;
  std::string verilator_version;
  std::string image_path;      ///< the .so, resolved relative to the manifest's directory
  std::string manifest_path;
  /// The design's register map ("registers": {name: "0x..." offset}); empty when the manifest
  /// has none. A register the map does not name is absent from the design (docs/zynq-board.md).
  std::map<std::string, uint32_t> registers;

  /// Loads and validates the keys rtl/cmake/write_manifest.cmake writes (docs/rtl.md); errors
  /// name the file and the key. Required: name, sha256 (64 hex digits), build_id, and fmax_mhz
  /// > 0 (it arms the closure gate). Optional, but an error when wrongly typed: caps, xlen,
  /// return_stack_depth (unsigned integers), rtl_digest, verilator_version, image (strings;
  /// image defaults to "<name>.so"), registers (an object of register name -> offset, "0x..."
  /// or an unsigned integer below 2^32). Other keys are ignored.
  static Result<ImageManifest> Load(const std::string& path);
  /// A DeployRequest for this image carrying the manifest's expectations.
  DeployRequest ToDeployRequest() const;
};

/// Ok when the receipt matches the manifest; otherwise InvalidArgument naming both values.
Status CheckReceipt(const ImageManifest& m, const DeployReceipt& r);

}  // namespace ctte::lab

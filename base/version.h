// The tool version a run is pinned to (docs/db-schema.md, "Content pins"): "0.1.0-<git describe>
// (<source commit>)", generated at configure time (base/version.cc.in). `ctte-lab --version`
// prints the same text.
#pragma once

namespace ctte {

/// e.g. "0.1.0-300d66c-dirty (300d66c0123...)"; "unknown" parts when git was not available.
const char* ToolVersion();
/// The full source commit (40 hex digits), or "unknown".
const char* SourceCommit();
/// The Debian package version this build makes (cmake/CtteInstall.cmake), e.g. "0.1.0+g1a2b3c4d5e".
const char* PackageVersion();

}  // namespace ctte

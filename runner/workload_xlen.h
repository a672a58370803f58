// The register width of a run: the image's XLEN (its manifest, "xlen"; the design reports the
// same in ctteProfile, runner/board_session.h) against the workload ELF's class. A 64-bit
// program on a 32-bit image, or a 32-bit program on a 64-bit image, is refused before the run
// (PrepareRun, preflight): its addresses would be truncated or its instructions mean something
// else, and the run would measure nothing. docs/campaign-spec.md, "Images of two widths".
//
// Built-in workloads are built for both widths and paired by name: on a 32-bit image the
// workload axis value `loop` is <workload_dir>/loop-rv32.elf (campaigns/CMakeLists.txt builds both), on a 64-bit image
// <workload_dir>/loop.elf. A user workload ($.workloads) and --workload-elf name one file of
// one class: it runs only on images of that width, and is refused on the others.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "lab/image_manifest.h"

namespace ctte::runner {

/// The image's XLEN: the manifest's xlen, 64 when the manifest gives none (older manifests).
uint32_t ImageXlen(const lab::ImageManifest& m);

/// 32 (ELFCLASS32) or 64 (ELFCLASS64), from the first bytes of the ELF at `path` only.
/// NotFound / IOError for an unreadable file, Corruption for a file that is not an ELF or has
/// another class (the message names the file and the byte).
Result<uint32_t> ElfXlen(const std::string& path);

/// Where built-in workload `name` of `xlen` lives under `dir` (see the header comment).
std::string BuiltinWorkloadPath(const std::string& dir, const std::string& name, uint32_t xlen);

/// Ok when the ELF at `path` (workload `workload`) has the class of image `m`; otherwise an
/// InvalidArgument like "image ntrace-rv32 is XLEN 32 but workload loop (/w/loop.elf) is
/// ELFCLASS64 (RV64): refused before the run, never truncated". ElfXlen's errors pass through.
Status CheckWorkloadXlen(const lab::ImageManifest& m, const std::string& workload,
                         const std::string& path);

}  // namespace ctte::runner

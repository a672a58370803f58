// Image XLEN against workload ELF class (see workload_xlen.h).
#include "runner/workload_xlen.h"

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "base/files.h"

namespace ctte::runner {

uint32_t ImageXlen(const lab::ImageManifest& m) { return m.xlen == 0 ? 64 : m.xlen; }

Result<uint32_t> ElfXlen(const std::string& path) {
  // A FIFO, device or directory is refused before it is opened (opening a FIFO would block):
  // ReadFileBytes says what it is, naming the path, without reading a byte.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    Result<std::vector<uint8_t>> refused = ReadFileBytes(path);
    if (!refused.ok()) return refused.status();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("no workload ELF " + path);
  unsigned char ident[5] = {};
  in.read(reinterpret_cast<char*>(ident), sizeof ident);
  if (in.gcount() != static_cast<std::streamsize>(sizeof ident) || ident[0] != 0x7f ||
      ident[1] != 'E' || ident[2] != 'L' || ident[3] != 'F') {
    return Status::Corruption(path + ": not an ELF file (no \\x7fELF magic at byte 0)");
  }
  if (ident[4] == 1) return 32u;
  if (ident[4] == 2) return 64u;
  return Status::Corruption(path + ": ELF class byte (offset 4) is " +
                            std::to_string(ident[4]) + ", neither ELFCLASS32 (1) nor "
                            "ELFCLASS64 (2)");
}

std::string BuiltinWorkloadPath(const std::string& dir, const std::string& name,
                                uint32_t xlen) {
  return dir + "/" + name + (xlen == 32 ? "-rv32" : "") + ".elf";
}

Status CheckWorkloadXlen(const lab::ImageManifest& m, const std::string& workload,
                         const std::string& path) {
  Result<uint32_t> elf = ElfXlen(path);
  if (!elf.ok()) return elf.status();
  const uint32_t image = ImageXlen(m);
  if (*elf == image) return Status::Ok();
  return Status::InvalidArgument(
      "image " + m.name + " is XLEN " + std::to_string(image) + " but workload " + workload +
      " (" + path + ") is ELFCLASS" + std::to_string(*elf) + " (RV" + std::to_string(*elf) +
      "): refused before the run, never truncated");
}

}  // namespace ctte::runner

// ELF loading with libelf: loadable segments (zero-extended to memsz), entry point, and the
// symbol table (for "function+offset" evidence). The file is read whole and parsed from memory.
#include "oracle/program_image.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "base/files.h"
#include "base/text.h"

namespace ctte::oracle {
namespace {

struct ElfCloser {
  Elf* elf;
  ~ElfCloser() {
    if (elf != nullptr) elf_end(elf);
  }
};

}  // namespace

Result<ProgramImage> ProgramImage::Load(const std::string& path) {
  Result<std::vector<uint8_t>> file = ReadFileBytes(path);
  if (!file.ok()) {
    return Status::NotFound(path + ": cannot read program image: " + file.status().message());
  }
  std::vector<uint8_t>& bytes = *file;
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return Status::InvalidArgument(path + ": not an ELF file (bad magic at byte offset 0)");
  }
  if (bytes[EI_CLASS] != ELFCLASS64 && bytes[EI_CLASS] != ELFCLASS32) {
    return Status::InvalidArgument(path + ": wrong ELF class " + std::to_string(bytes[EI_CLASS]) +
                                   " at byte offset 4 (need ELFCLASS32, RV32, or ELFCLASS64, RV64)");
  }
  // e_ehsize tells a header's real class: a class byte that disagrees with it would make libelf
  // read the header's fields at the wrong offsets.
  const bool is32 = bytes[EI_CLASS] == ELFCLASS32;
  const size_t ehsize_at = is32 ? 40 : 52;
  const unsigned ehsize =
      bytes.size() >= ehsize_at + 2 ? (bytes[ehsize_at] | bytes[ehsize_at + 1] << 8) : 0;
  if (ehsize != (is32 ? 52u : 64u)) {
    return Status::InvalidArgument(
        path + ": wrong ELF class " + std::to_string(bytes[EI_CLASS]) +
        " at byte offset 4 for its header: e_ehsize (byte offset " + std::to_string(ehsize_at) +
        ") is " + std::to_string(ehsize) + ", an " +
        (is32 ? "ELFCLASS32 header has 52" : "ELFCLASS64 header has 64"));
  }
  if (elf_version(EV_CURRENT) == EV_NONE) return Status::Internal("libelf: version mismatch");
  ElfCloser closer{elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size())};
  Elf* elf = closer.elf;
  GElf_Ehdr ehdr;
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == nullptr) {
    return Status::InvalidArgument(path + ": malformed ELF header: " + elf_errmsg(-1));
  }
  if (ehdr.e_machine != EM_RISCV) {
    return Status::InvalidArgument(path + ": wrong ELF machine " + std::to_string(ehdr.e_machine) +
                                   " at byte offset 18 (need EM_RISCV=243)");
  }
  ProgramImage image;
  image.path_ = path;
  image.entry_ = ehdr.e_entry;
  image.xlen_ = is32 ? Xlen::k32 : Xlen::k64;

  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) {
    return Status::InvalidArgument(path + ": cannot read program headers: " + elf_errmsg(-1));
  }
  std::vector<std::string> headers;  // each segment's "FILE: program header I (...)"
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr) {
      return Status::InvalidArgument(path + ": bad program header " + std::to_string(i));
    }
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    const std::string where = path + ": program header " + std::to_string(i) + " (vaddr " +
                              HexShort(ph.p_vaddr) + ", memsz " + HexShort(ph.p_memsz) + ")";
    if (ph.p_filesz > ph.p_memsz || ph.p_offset > bytes.size() ||
        ph.p_filesz > bytes.size() - ph.p_offset) {
      return Status::InvalidArgument(where + ": file bytes at offset " + HexShort(ph.p_offset) +
                                     " run past the end of the file or past memsz");
    }
    Segment seg;
    seg.vaddr = ph.p_vaddr;
    seg.memsz = ph.p_memsz;
    seg.executable = (ph.p_flags & PF_X) != 0;
    seg.bytes.assign(ph.p_memsz, 0);
    std::memcpy(seg.bytes.data(), bytes.data() + ph.p_offset, ph.p_filesz);
    image.segments_.push_back(std::move(seg));
    headers.push_back(where);
  }
  if (image.segments_.empty()) {
    return Status::InvalidArgument(path + ": no loadable segment");
  }

  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || sh.sh_entsize == 0) continue;
    const size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      const int type = GELF_ST_TYPE(sym.st_info);
      if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_name == 0) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name == nullptr || name[0] == '\0' || name[0] == '$' ||
          std::strncmp(name, ".L", 2) == 0) {
        continue;
      }
      image.symbols_.push_back(Symbol{name, sym.st_value, sym.st_size, type == STT_FUNC});
    }
  }
  // Where the platform maps each segment (oracle/platform.h): anywhere but a device window of
  // the program's machine (which HTIF's tohost symbol selects), within the RAM limit.
  const platform::Machine machine = platform::MachineOf(image);
  for (size_t i = 0; i < image.segments_.size(); ++i) {
    const Segment& s = image.segments_[i];
    const std::string why = platform::SegmentRefusal(machine, image.xlen_, s.vaddr, s.memsz);
    if (!why.empty()) return Status::InvalidArgument(headers[i] + ": " + why);
  }
  image.Finish();
  Result<std::vector<platform::RamRegion>> ram = platform::RamRegions(image);
  if (!ram.ok()) return Status::InvalidArgument(path + ": " + ram.status().message());
  return image;
}

Result<ProgramImage> ProgramImage::Load(const std::string& path, Xlen want) {
  CTTE_ASSIGN_OR_RETURN(ProgramImage image, Load(path));
  if (image.xlen() != want) {
    const bool is32 = image.xlen() == Xlen::k32;
    return Status::InvalidArgument(
        path + ": wrong ELF class " + (is32 ? "ELFCLASS32 (RV32)" : "ELFCLASS64 (RV64)") +
        " at byte offset 4: need " + (is32 ? "ELFCLASS64 (RV64)" : "ELFCLASS32 (RV32)") +
        " for an XLEN " + std::to_string(XlenBits(want)) + " core");
  }
  return image;
}

void ProgramImage::Finish() {
  std::sort(segments_.begin(), segments_.end(),
            [](const Segment& a, const Segment& b) { return a.vaddr < b.vaddr; });
  std::stable_sort(symbols_.begin(), symbols_.end(),
                   [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; });
}

ProgramImage ProgramImage::FromSegments(uint64_t entry, std::vector<Segment> segments,
                                        std::vector<Symbol> symbols, Xlen xlen) {
  ProgramImage image;
  image.xlen_ = xlen;
  image.path_ = "<memory>";
  image.entry_ = entry;
  image.segments_ = std::move(segments);
  image.symbols_ = std::move(symbols);
  image.Finish();
  return image;
}

bool ProgramImage::Read(uint64_t addr, void* out, size_t n) const {
  auto* dst = static_cast<uint8_t*>(out);
  while (n > 0) {
    const Segment* seg = nullptr;
    for (const Segment& s : segments_) {
      if (addr >= s.vaddr && addr - s.vaddr < s.memsz) {
        seg = &s;
        break;
      }
    }
    if (seg == nullptr) return false;
    const uint64_t off = addr - seg->vaddr;
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, seg->memsz - off));
    std::memcpy(dst, seg->bytes.data() + off, chunk);
    dst += chunk;
    addr += chunk;
    n -= chunk;
  }
  return true;
}

bool ProgramImage::FetchInsn(uint64_t addr, uint32_t* raw) const {
  uint16_t lo = 0;
  if (!Read(addr, &lo, 2)) return false;
  if ((lo & 3) != 3) {
    *raw = lo;
    return true;
  }
  uint16_t hi = 0;
  if (!Read(addr + 2, &hi, 2)) return false;
  *raw = static_cast<uint32_t>(hi) << 16 | lo;
  return true;
}

std::string ProgramImage::Symbolize(uint64_t addr) const {
  // The function symbol with the highest start <= addr that covers it (a sized symbol covers
  // [addr, addr+size); an unsized one reaches to the next symbol).
  const Symbol* best = nullptr;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const Symbol& s = symbols_[i];
    if (s.addr > addr) break;
    if (!s.is_function && s.size == 0) {
      // Unsized NOTYPE labels (e.g. _start in crt0.S) also name code.
      const bool in_exec = std::any_of(segments_.begin(), segments_.end(), [&](const Segment& g) {
        return g.executable && s.addr >= g.vaddr && s.addr - g.vaddr < g.memsz;
      });
      if (!in_exec) continue;
    } else if (!s.is_function) {
      continue;
    }
    const bool covers = s.size != 0 ? addr - s.addr < s.size
                                    : (i + 1 == symbols_.size() || symbols_[i + 1].addr > addr);
    if (covers) best = &s;
  }
  if (best == nullptr) return HexShort(addr);
  if (addr == best->addr) return best->name;
  return best->name + "+" + HexShort(addr - best->addr);
}

}  // namespace ctte::oracle

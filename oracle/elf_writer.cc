// Minimal ELF64 writer: header, one PT_LOAD per segment (file bytes page-aligned), and section
// headers for .symtab/.strtab/.shstrtab so that symbols survive (ProgramImage::Symbolize).
#include "oracle/elf_writer.h"

#include <cstring>

#include "base/files.h"

namespace ctte::oracle {
namespace {

template <typename T>
void Put(std::vector<uint8_t>& out, size_t at, T v) {
  if (out.size() < at + sizeof(T)) out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

}  // namespace

Status WriteElf(const std::string& path, uint64_t entry, const std::vector<Segment>& segments,
                const std::vector<Symbol>& symbols) {
  constexpr size_t kEhdr = 64, kPhdr = 56, kShdr = 64, kSym = 24;
  std::vector<uint8_t> out(kEhdr + kPhdr * segments.size(), 0);
  // Segment payloads, each at a file offset congruent to its vaddr modulo 4 KiB.
  std::vector<uint64_t> offsets;
  for (const Segment& s : segments) {
    uint64_t off = (out.size() + 0xfff) & ~0xfffULL;
    off += s.vaddr & 0xfff;
    out.resize(off, 0);
    offsets.push_back(off);
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }
  // String tables and symbols.
  std::string strtab(1, '\0');
  std::vector<uint8_t> symtab(kSym, 0);  // null symbol
  for (const Symbol& sym : symbols) {
    const size_t at = symtab.size();
    symtab.resize(at + kSym, 0);
    Put<uint32_t>(symtab, at, static_cast<uint32_t>(strtab.size()));
    symtab[at + 4] = static_cast<uint8_t>((1 << 4) | (sym.is_function ? 2 : 1));  // GLOBAL
    Put<uint16_t>(symtab, at + 6, 0xfff1);                                        // SHN_ABS
    Put<uint64_t>(symtab, at + 8, sym.addr);
    Put<uint64_t>(symtab, at + 16, sym.size);
    strtab += sym.name;
    strtab.push_back('\0');
  }
  const std::string shstrtab = std::string("\0.symtab\0.strtab\0.shstrtab\0", 27);
  while (out.size() % 8 != 0) out.push_back(0);
  const uint64_t symtab_off = out.size();
  out.insert(out.end(), symtab.begin(), symtab.end());
  const uint64_t strtab_off = out.size();
  out.insert(out.end(), strtab.begin(), strtab.end());
  const uint64_t shstr_off = out.size();
  out.insert(out.end(), shstrtab.begin(), shstrtab.end());
  while (out.size() % 8 != 0) out.push_back(0);
  const uint64_t shoff = out.size();
  out.resize(shoff + 4 * kShdr, 0);
  auto shdr = [&](int i, uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint32_t link,
                  uint32_t info, uint64_t entsize) {
    const size_t at = shoff + static_cast<size_t>(i) * kShdr;
    Put<uint32_t>(out, at, name);
    Put<uint32_t>(out, at + 4, type);
    Put<uint64_t>(out, at + 24, off);
    Put<uint64_t>(out, at + 32, size);
    Put<uint32_t>(out, at + 40, link);
    Put<uint32_t>(out, at + 44, info);
    Put<uint64_t>(out, at + 48, 1);
    Put<uint64_t>(out, at + 56, entsize);
  };
  shdr(1, 1, 2 /*SHT_SYMTAB*/, symtab_off, symtab.size(), 2, 1, kSym);
  shdr(2, 9, 3 /*SHT_STRTAB*/, strtab_off, strtab.size(), 0, 0, 0);
  shdr(3, 17, 3, shstr_off, shstrtab.size(), 0, 0, 0);
  // ELF header.
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2 /*64*/, 1 /*LE*/, 1, 0};
  std::memcpy(out.data(), ident, 16);
  Put<uint16_t>(out, 16, 2);    // ET_EXEC
  Put<uint16_t>(out, 18, 243);  // EM_RISCV
  Put<uint32_t>(out, 20, 1);
  Put<uint64_t>(out, 24, entry);
  Put<uint64_t>(out, 32, kEhdr);  // phoff
  Put<uint64_t>(out, 40, shoff);
  Put<uint32_t>(out, 48, 0x5);  // EF_RISCV_RVC | float ABI soft
  Put<uint16_t>(out, 52, kEhdr);
  Put<uint16_t>(out, 54, kPhdr);
  Put<uint16_t>(out, 56, static_cast<uint16_t>(segments.size()));
  Put<uint16_t>(out, 58, kShdr);
  Put<uint16_t>(out, 60, 4);
  Put<uint16_t>(out, 62, 3);  // shstrndx
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    const size_t at = kEhdr + i * kPhdr;
    Put<uint32_t>(out, at, 1);                             // PT_LOAD
    Put<uint32_t>(out, at + 4, s.executable ? 0x5 : 0x6);  // R+X or R+W
    Put<uint64_t>(out, at + 8, offsets[i]);
    Put<uint64_t>(out, at + 16, s.vaddr);
    Put<uint64_t>(out, at + 24, s.vaddr);
    Put<uint64_t>(out, at + 32, s.bytes.size());
    Put<uint64_t>(out, at + 40, s.memsz);
    Put<uint64_t>(out, at + 48, 0x1000);
  }
  return WriteFileAtomic(path, out);
}

}  // namespace ctte::oracle

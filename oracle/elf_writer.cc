// Minimal ELF writer, ELF64 (RV64) or ELF32 (RV32): header, one PT_LOAD per segment (file bytes
// page-aligned), and section headers for .symtab/.strtab/.shstrtab so that symbols survive
// (ProgramImage::Symbolize). The two classes differ only in field widths and offsets (Layout).
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

// Sizes and field offsets of one ELF class (the System V gABI's Elf32_* / Elf64_* structs).
struct Layout {
  uint8_t elf_class;  // 1 = ELFCLASS32, 2 = ELFCLASS64
  size_t word;        // Elf_Addr / Elf_Off / Elf_Xword width: 4 or 8
  size_t ehdr, phdr, shdr, sym;
  // Ehdr: e_entry, e_phoff, e_shoff, e_flags (e_ehsize and the five halves follow e_flags).
  size_t e_entry, e_phoff, e_shoff, e_flags;
  // Phdr: p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align (p_type at 0).
  size_t p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
  // Shdr: sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize (name, type at 0, 4).
  size_t sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize;
  // Sym: st_value, st_size, st_info, st_shndx (st_name at 0).
  size_t st_value, st_size, st_info, st_shndx;
};

constexpr Layout kElf64{2,  8,  64, 56, 64, 24, 24, 32, 40, 48, 4,  8,  16, 24, 32,
                        40, 48, 24, 32, 40, 44, 48, 56, 8,  16, 4,  6};
constexpr Layout kElf32{1,  4,  52, 32, 40, 16, 24, 28, 32, 36, 24, 4,  8,  12, 16,
                        20, 28, 16, 20, 24, 28, 32, 36, 4,  8,  12, 14};

}  // namespace

Status WriteElf(const std::string& path, uint64_t entry, const std::vector<Segment>& segments,
                const std::vector<Symbol>& symbols, Xlen xlen) {
  const Layout& L = xlen == Xlen::k32 ? kElf32 : kElf64;
  std::vector<uint8_t> out(L.ehdr + L.phdr * segments.size(), 0);
  auto word = [&](std::vector<uint8_t>& buf, size_t at, uint64_t v) {
    if (L.word == 4) {
      Put<uint32_t>(buf, at, static_cast<uint32_t>(v));
    } else {
      Put<uint64_t>(buf, at, v);
    }
  };
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
  std::vector<uint8_t> symtab(L.sym, 0);  // null symbol
  for (const Symbol& sym : symbols) {
    const size_t at = symtab.size();
    symtab.resize(at + L.sym, 0);
    Put<uint32_t>(symtab, at, static_cast<uint32_t>(strtab.size()));
    symtab[at + L.st_info] = static_cast<uint8_t>((1 << 4) | (sym.is_function ? 2 : 1));  // GLOBAL
    Put<uint16_t>(symtab, at + L.st_shndx, 0xfff1);  // SHN_ABS
    word(symtab, at + L.st_value, sym.addr);
    word(symtab, at + L.st_size, sym.size);
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
  out.resize(shoff + 4 * L.shdr, 0);
  auto shdr = [&](int i, uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint32_t link,
                  uint32_t info, uint64_t entsize) {
    const size_t at = shoff + static_cast<size_t>(i) * L.shdr;
    Put<uint32_t>(out, at, name);
    Put<uint32_t>(out, at + 4, type);
    word(out, at + L.sh_offset, off);
    word(out, at + L.sh_size, size);
    Put<uint32_t>(out, at + L.sh_link, link);
    Put<uint32_t>(out, at + L.sh_info, info);
    word(out, at + L.sh_addralign, 1);
    word(out, at + L.sh_entsize, entsize);
  };
  shdr(1, 1, 2 /*SHT_SYMTAB*/, symtab_off, symtab.size(), 2, 1, L.sym);
  shdr(2, 9, 3 /*SHT_STRTAB*/, strtab_off, strtab.size(), 0, 0, 0);
  shdr(3, 17, 3, shstr_off, shstrtab.size(), 0, 0, 0);
  // ELF header.
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', L.elf_class, 1 /*LE*/, 1, 0};
  std::memcpy(out.data(), ident, 16);
  Put<uint16_t>(out, 16, 2);    // ET_EXEC
  Put<uint16_t>(out, 18, 243);  // EM_RISCV
  Put<uint32_t>(out, 20, 1);
  word(out, L.e_entry, entry);
  word(out, L.e_phoff, L.ehdr);
  word(out, L.e_shoff, shoff);
  Put<uint32_t>(out, L.e_flags, 0x5);  // e_flags: EF_RISCV_RVC (bit 0), as ever
  const size_t half = L.e_flags + 4;   // e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum
  Put<uint16_t>(out, half, static_cast<uint16_t>(L.ehdr));
  Put<uint16_t>(out, half + 2, static_cast<uint16_t>(L.phdr));
  Put<uint16_t>(out, half + 4, static_cast<uint16_t>(segments.size()));
  Put<uint16_t>(out, half + 6, static_cast<uint16_t>(L.shdr));
  Put<uint16_t>(out, half + 8, 4);
  Put<uint16_t>(out, half + 10, 3);  // shstrndx
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    const size_t at = L.ehdr + i * L.phdr;
    Put<uint32_t>(out, at, 1);                                       // PT_LOAD
    Put<uint32_t>(out, at + L.p_flags, s.executable ? 0x5 : 0x6);  // R+X or R+W
    word(out, at + L.p_offset, offsets[i]);
    word(out, at + L.p_vaddr, s.vaddr);
    word(out, at + L.p_paddr, s.vaddr);
    word(out, at + L.p_filesz, s.bytes.size());
    word(out, at + L.p_memsz, s.memsz);
    word(out, at + L.p_align, 0x1000);
  }
  return WriteFileAtomic(path, out);
}

}  // namespace ctte::oracle

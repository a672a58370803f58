// RV64IMAC assembler with label fixups (see iss_asm.h).
#include "oracle/iss_asm.h"

#include "base/check.h"

namespace ctte::oracle {
namespace {

bool Fits(int64_t v, int bits) { return v >= -(1LL << (bits - 1)) && v < (1LL << (bits - 1)); }

uint32_t BImm(int64_t off) {
  const uint32_t u = static_cast<uint32_t>(off);
  return ((u >> 11) & 1) << 7 | ((u >> 1) & 0xf) << 8 | ((u >> 5) & 0x3f) << 25 |
         ((u >> 12) & 1) << 31;
}
uint32_t JImm(int64_t off) {
  const uint32_t u = static_cast<uint32_t>(off);
  return ((u >> 12) & 0xff) << 12 | ((u >> 11) & 1) << 20 | ((u >> 1) & 0x3ff) << 21 |
         ((u >> 20) & 1) << 31;
}
uint16_t CjImm(int64_t off) {
  const uint32_t u = static_cast<uint32_t>(off);
  return static_cast<uint16_t>(((u >> 11) & 1) << 12 | ((u >> 4) & 1) << 11 | ((u >> 8) & 3) << 9 |
                               ((u >> 10) & 1) << 8 | ((u >> 6) & 1) << 7 | ((u >> 7) & 1) << 6 |
                               ((u >> 1) & 7) << 3 | ((u >> 5) & 1) << 2);
}
uint16_t CbImm(int64_t off) {
  const uint32_t u = static_cast<uint32_t>(off);
  return static_cast<uint16_t>(((u >> 8) & 1) << 12 | ((u >> 3) & 3) << 10 | ((u >> 6) & 3) << 5 |
                               ((u >> 1) & 3) << 3 | ((u >> 5) & 1) << 2);
}

}  // namespace

Assembler::Label Assembler::NewLabel() {
  labels_.push_back(-1);
  return static_cast<Label>(labels_.size() - 1);
}

void Assembler::Bind(Label l) {
  CTTE_CHECK(labels_[l] < 0, "label bound twice");
  labels_[l] = static_cast<int64_t>(bytes_.size());
}

uint64_t Assembler::Address(Label l) const {
  CTTE_CHECK(labels_[l] >= 0, "label not bound");
  return base_ + static_cast<uint64_t>(labels_[l]);
}

void Assembler::Emit16(uint16_t h) {
  bytes_.push_back(static_cast<uint8_t>(h));
  bytes_.push_back(static_cast<uint8_t>(h >> 8));
}

void Assembler::Emit32(uint32_t w) {
  Emit16(static_cast<uint16_t>(w));
  Emit16(static_cast<uint16_t>(w >> 16));
}

void Assembler::Put32(size_t at, uint32_t w) {
  for (int i = 0; i < 4; ++i) bytes_[at + i] = static_cast<uint8_t>(w >> (8 * i));
}

uint32_t Assembler::Get32(size_t at) const {
  uint32_t w = 0;
  for (int i = 0; i < 4; ++i) w |= static_cast<uint32_t>(bytes_[at + i]) << (8 * i);
  return w;
}

void Assembler::R(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, uint32_t rs2, uint32_t f7) {
  Emit32(op | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25);
}

void Assembler::I(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, int32_t imm) {
  CTTE_CHECK(Fits(imm, 12), "I-immediate out of range");
  Emit32(op | rd << 7 | f3 << 12 | rs1 << 15 | (static_cast<uint32_t>(imm) & 0xfff) << 20);
}

void Assembler::S(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  CTTE_CHECK(Fits(imm, 12), "S-immediate out of range");
  const uint32_t u = static_cast<uint32_t>(imm);
  Emit32(0x23 | (u & 0x1f) << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | ((u >> 5) & 0x7f) << 25);
}

void Assembler::U(uint32_t op, uint32_t rd, uint32_t imm20) {
  Emit32(op | rd << 7 | (imm20 & 0xfffff) << 12);
}

void Assembler::Li(uint32_t rd, int64_t value) {
  if (xlen_ == Xlen::k32) {
    const int64_t v = static_cast<int32_t>(static_cast<uint32_t>(value));
    if (Fits(v, 12)) {
      Addi(rd, reg::zero, static_cast<int32_t>(v));
      return;
    }
    const int64_t lo = (v << 52) >> 52;  // sign-extended low 12 bits
    U(0x37, rd, static_cast<uint32_t>((v - lo) >> 12));  // 32-bit wrap-around makes it exact
    if (lo != 0) Addi(rd, rd, static_cast<int32_t>(lo));
    return;
  }
  if (Fits(value, 12)) {
    Addi(rd, reg::zero, static_cast<int32_t>(value));
    return;
  }
  if (Fits(value, 32)) {
    const int64_t lo = (value << 52) >> 52;  // sign-extended low 12 bits
    const int64_t hi = (value - lo) >> 12;
    U(0x37, rd, static_cast<uint32_t>(hi));
    if (lo != 0) I(0x1b, rd, 0, rd, static_cast<int32_t>(lo));  // addiw
    return;
  }
  // Upper part first, then shift in the low 12 bits at a time (as GCC's li expansion).
  const int64_t lo = (value << 52) >> 52;
  const int64_t rest = (value - lo) >> 12;
  int shift = 12;
  int64_t upper = rest;
  while ((upper & 1) == 0 && shift < 40) {  // strip trailing zeros to keep the chain short
    upper >>= 1;
    ++shift;
  }
  Li(rd, upper);
  I(0x13, rd, 1, rd, shift);  // slli
  if (lo != 0) Addi(rd, rd, static_cast<int32_t>(lo));
}

void Assembler::La(uint32_t rd, Label l) {
  fixups_.push_back({bytes_.size(), l, Fix::kLa});
  U(0x17, rd, 0);
  I(0x13, rd, 0, rd, 0);
}

void Assembler::Branch(uint32_t f3, uint32_t rs1, uint32_t rs2, Label target) {
  fixups_.push_back({bytes_.size(), target, Fix::kBranch});
  Emit32(0x63 | f3 << 12 | rs1 << 15 | rs2 << 20);
}

void Assembler::Jal(uint32_t rd, Label target) {
  fixups_.push_back({bytes_.size(), target, Fix::kJal});
  Emit32(0x6f | rd << 7);
}

void Assembler::Csr(uint32_t f3, uint32_t rd, uint32_t csr, uint32_t rs1) {
  Emit32(0x73 | rd << 7 | f3 << 12 | rs1 << 15 | csr << 20);
}

void Assembler::CAddi(uint32_t rd, int32_t imm) {
  CTTE_CHECK(Fits(imm, 6), "c.addi immediate");
  const uint32_t u = static_cast<uint32_t>(imm);
  Emit16(static_cast<uint16_t>(0x0001 | ((u >> 5) & 1) << 12 | rd << 7 | (u & 0x1f) << 2));
}

void Assembler::CLi(uint32_t rd, int32_t imm) {
  CTTE_CHECK(Fits(imm, 6), "c.li immediate");
  const uint32_t u = static_cast<uint32_t>(imm);
  Emit16(static_cast<uint16_t>(0x4001 | ((u >> 5) & 1) << 12 | rd << 7 | (u & 0x1f) << 2));
}

void Assembler::CMv(uint32_t rd, uint32_t rs2) {
  CTTE_CHECK(rd != 0 && rs2 != 0, "c.mv registers");
  Emit16(static_cast<uint16_t>(0x8002 | rd << 7 | rs2 << 2));
}

void Assembler::CAdd(uint32_t rd, uint32_t rs2) {
  CTTE_CHECK(rd != 0 && rs2 != 0, "c.add registers");
  Emit16(static_cast<uint16_t>(0x9002 | rd << 7 | rs2 << 2));
}

void Assembler::CJ(Label target) {
  fixups_.push_back({bytes_.size(), target, Fix::kCj});
  Emit16(0xa001);
}

void Assembler::CBeqz(uint32_t rs1, Label target) {
  CTTE_CHECK(rs1 >= 8 && rs1 < 16, "c.beqz register");
  fixups_.push_back({bytes_.size(), target, Fix::kCb});
  Emit16(static_cast<uint16_t>(0xc001 | (rs1 - 8) << 7));
}

void Assembler::CBnez(uint32_t rs1, Label target) {
  CTTE_CHECK(rs1 >= 8 && rs1 < 16, "c.bnez register");
  fixups_.push_back({bytes_.size(), target, Fix::kCb});
  Emit16(static_cast<uint16_t>(0xe001 | (rs1 - 8) << 7));
}

std::vector<uint8_t> Assembler::Finish() {
  for (const Fixup& f : fixups_) {
    CTTE_CHECK(labels_[f.label] >= 0, "reference to an unbound label");
    const int64_t off = labels_[f.label] - static_cast<int64_t>(f.at);
    switch (f.kind) {
      case Fix::kBranch:
        CTTE_CHECK(Fits(off, 13), "branch out of range");
        Put32(f.at, Get32(f.at) | BImm(off));
        break;
      case Fix::kJal:
        CTTE_CHECK(Fits(off, 21), "jal out of range");
        Put32(f.at, Get32(f.at) | JImm(off));
        break;
      case Fix::kCj: {
        CTTE_CHECK(Fits(off, 12), "c.j out of range");
        const uint16_t h = static_cast<uint16_t>(bytes_[f.at] | bytes_[f.at + 1] << 8) | CjImm(off);
        bytes_[f.at] = static_cast<uint8_t>(h);
        bytes_[f.at + 1] = static_cast<uint8_t>(h >> 8);
        break;
      }
      case Fix::kCb: {
        CTTE_CHECK(Fits(off, 9), "c.beqz/c.bnez out of range");
        const uint16_t h = static_cast<uint16_t>(bytes_[f.at] | bytes_[f.at + 1] << 8) | CbImm(off);
        bytes_[f.at] = static_cast<uint8_t>(h);
        bytes_[f.at + 1] = static_cast<uint8_t>(h >> 8);
        break;
      }
      case Fix::kLa: {
        const int64_t lo = (off << 52) >> 52;
        const int64_t hi = (off - lo) >> 12;
        CTTE_CHECK(Fits(hi, 20), "la out of range");
        Put32(f.at, Get32(f.at) | (static_cast<uint32_t>(hi) & 0xfffff) << 12);
        Put32(f.at + 4, Get32(f.at + 4) | (static_cast<uint32_t>(lo) & 0xfff) << 20);
        break;
      }
    }
  }
  fixups_.clear();
  return bytes_;
}

}  // namespace ctte::oracle

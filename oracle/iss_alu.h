// Private to the ISS (oracle/iss_execute.cc): the integer register-register and register-
// immediate operations (OP, OP-IMM, and RV64's OP-32, OP-IMM-32) with the M extension, for an
// XLEN given by the register type T (uint64_t: RV64, uint32_t: RV32). Registers hold XLEN-bit
// values (RV32: zero-extended in the 64-bit slots). Inlined into the interpreter's one switch.
#pragma once

#include <cstdint>
#include <type_traits>

#include "oracle/iss_impl.h"

namespace ctte::oracle::iss_internal {

constexpr uint32_t Bits(uint32_t x, int hi, int lo) {
  return (x >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr uint64_t Sx32(uint64_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}

__extension__ typedef __int128 I128;
__extension__ typedef unsigned __int128 U128;

// The upper XLEN bits of the 2*XLEN-bit products of mulh, mulhu, mulhsu.
template <typename T>
inline T MulH(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>((static_cast<I128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b)) >>
                          64);
  } else {
    return static_cast<T>(
        (static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b)) >> 32);
  }
}
template <typename T>
inline T MulHU(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>((static_cast<U128>(a) * b) >> 64);
  } else {
    return static_cast<T>((static_cast<uint64_t>(a) * b) >> 32);
  }
}
template <typename T>
inline T MulHSU(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>((static_cast<I128>(static_cast<int64_t>(a)) * static_cast<I128>(b)) >>
                          64);
  } else {
    return static_cast<T>(
        (static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int64_t>(b)) >> 32);
  }
}
// Signed division and remainder on XLEN (or, for the *W forms, 32-bit) signed values S, with
// RISC-V's results for a zero divisor and for overflow.
template <typename S>
inline S Div(S a, S b) {
  if (b == 0) return -1;
  if (a == std::numeric_limits<S>::min() && b == -1) return a;
  return a / b;
}
template <typename S>
inline S Rem(S a, S b) {
  if (b == 0) return a;
  if (a == std::numeric_limits<S>::min() && b == -1) return 0;
  return a % b;
}

}  // namespace ctte::oracle::iss_internal

namespace ctte::oracle {

template <typename T, uint32_t kOp>
__attribute__((always_inline)) inline bool Iss::Impl::Alu(uint32_t w) {
  using S = std::make_signed_t<T>;
  using iss_internal::Bits;
  using iss_internal::Sx32;
  constexpr bool k64 = sizeof(T) == 8;
  constexpr uint32_t kShiftMask = k64 ? 63 : 31;
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), rs2 = Bits(w, 24, 20);
  const uint32_t f3 = Bits(w, 14, 12), f7 = Bits(w, 31, 25);
  const T a = static_cast<T>(x_[rs1]), b = static_cast<T>(x_[rs2]);
  const S imm_i = static_cast<S>(static_cast<int32_t>(w) >> 20);
  if constexpr (kOp == 0x13) {  // op-imm
    {
      const T imm = static_cast<T>(imm_i);
      // Shift amounts: 6 bits on RV64, 5 on RV32 (bit 25 set is then illegal).
      const uint32_t shamt = k64 ? Bits(w, 25, 20) : Bits(w, 24, 20);
      const uint32_t shift_f = k64 ? Bits(w, 31, 26) << 1 : f7;
      switch (f3) {
        case 0:
          x_[rd] = static_cast<T>(a + imm);
          return true;
        case 1:
          if (shift_f != 0) return false;
          x_[rd] = static_cast<T>(a << shamt);
          return true;
        case 2:
          x_[rd] = static_cast<S>(a) < imm_i;
          return true;
        case 3:
          x_[rd] = a < imm;
          return true;
        case 4:
          x_[rd] = a ^ imm;
          return true;
        case 5:
          if (shift_f == 0) {
            x_[rd] = a >> shamt;
            return true;
          }
          if (shift_f == 0x20) {
            x_[rd] = static_cast<T>(static_cast<S>(a) >> shamt);
            return true;
          }
          return false;
        case 6:
          x_[rd] = a | imm;
          return true;
        default:
          x_[rd] = a & imm;
          return true;
      }
    }
  } else if constexpr (kOp == 0x33) {  // op
    {
      const S sa = static_cast<S>(a), sb = static_cast<S>(b);
      if (f7 == 0) {
        switch (f3) {
          case 0:
            x_[rd] = static_cast<T>(a + b);
            return true;
          case 1:
            x_[rd] = static_cast<T>(a << (b & kShiftMask));
            return true;
          case 2:
            x_[rd] = sa < sb;
            return true;
          case 3:
            x_[rd] = a < b;
            return true;
          case 4:
            x_[rd] = a ^ b;
            return true;
          case 5:
            x_[rd] = a >> (b & kShiftMask);
            return true;
          case 6:
            x_[rd] = a | b;
            return true;
          default:
            x_[rd] = a & b;
            return true;
        }
      }
      if (f7 == 0x20) {
        if (f3 == 0) {
          x_[rd] = static_cast<T>(a - b);
          return true;
        }
        if (f3 == 5) {
          x_[rd] = static_cast<T>(sa >> (b & kShiftMask));
          return true;
        }
        return false;
      }
      if (f7 == 1) {
        switch (f3) {
          case 0:
            x_[rd] = static_cast<T>(a * b);
            return true;
          case 1:
            x_[rd] = iss_internal::MulH(a, b);
            return true;
          case 2:
            x_[rd] = iss_internal::MulHSU(a, b);
            return true;
          case 3:
            x_[rd] = iss_internal::MulHU(a, b);
            return true;
          case 4:
            x_[rd] = static_cast<T>(iss_internal::Div(sa, sb));
            return true;
          case 5:
            x_[rd] = b == 0 ? static_cast<T>(~T{0}) : static_cast<T>(a / b);
            return true;
          case 6:
            x_[rd] = static_cast<T>(iss_internal::Rem(sa, sb));
            return true;
          default:
            x_[rd] = b == 0 ? a : static_cast<T>(a % b);
            return true;
        }
      }
      return false;
    }
  } else if constexpr (k64) {
    {
      const uint32_t a32 = static_cast<uint32_t>(a), b32 = static_cast<uint32_t>(b);
      const int32_t sa = static_cast<int32_t>(a32), sb = static_cast<int32_t>(b32);
      if constexpr (kOp == 0x1b) {  // op-imm-32
        const uint32_t shamt = Bits(w, 24, 20);
        if (f3 == 0) {
          x_[rd] = Sx32(a + static_cast<uint64_t>(imm_i));
          return true;
        }
        if (f3 == 1 && f7 == 0) {
          x_[rd] = Sx32(a32 << shamt);
          return true;
        }
        if (f3 == 5 && f7 == 0) {
          x_[rd] = Sx32(a32 >> shamt);
          return true;
        }
        if (f3 == 5 && f7 == 0x20) {
          x_[rd] = Sx32(static_cast<uint32_t>(sa >> shamt));
          return true;
        }
        return false;
      }
      // op-32
      if (f7 == 0) {
        if (f3 == 0) {
          x_[rd] = Sx32(a32 + b32);
          return true;
        }
        if (f3 == 1) {
          x_[rd] = Sx32(a32 << (b32 & 31));
          return true;
        }
        if (f3 == 5) {
          x_[rd] = Sx32(a32 >> (b32 & 31));
          return true;
        }
        return false;
      }
      if (f7 == 0x20) {
        if (f3 == 0) {
          x_[rd] = Sx32(a32 - b32);
          return true;
        }
        if (f3 == 5) {
          x_[rd] = Sx32(static_cast<uint32_t>(sa >> (b32 & 31)));
          return true;
        }
        return false;
      }
      if (f7 == 1) {
        switch (f3) {
          case 0:
            x_[rd] = Sx32(a32 * b32);
            return true;
          case 4:
            x_[rd] = Sx32(static_cast<uint32_t>(iss_internal::Div(sa, sb)));
            return true;
          case 5:
            x_[rd] = b32 == 0 ? ~0ULL : Sx32(a32 / b32);
            return true;
          case 6:
            x_[rd] = Sx32(static_cast<uint32_t>(iss_internal::Rem(sa, sb)));
            return true;
          case 7:
            x_[rd] = b32 == 0 ? Sx32(a32) : Sx32(a32 % b32);
            return true;
          default:
            break;
        }
      }
    }
  }
  return false;
}

}  // namespace ctte::oracle

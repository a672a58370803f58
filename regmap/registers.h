// The encoder's register map: offsets, trTeControl fields and the values of its enumerated fields
// (docs/encoder-behaviour.md section 9). The one C++ spelling of these numbers: lab/, oracle/,
// runner/ and the tools name them from here, never as literals.
#pragma once

#include <cstdint>

namespace ctte::reg {

inline constexpr uint32_t kTeControl = 0x000;
inline constexpr uint32_t kTeImpl = 0x004;
inline constexpr uint32_t kTeInstFeatures = 0x008;
inline constexpr uint32_t kBuildIdLo = 0x100;
inline constexpr uint32_t kBuildIdHi = 0x104;
inline constexpr uint32_t kProfile = 0x108;
inline constexpr uint32_t kCaps = 0x10C;
inline constexpr uint32_t kMsgCount = 0x110;
inline constexpr uint32_t kByteCount = 0x114;
inline constexpr uint32_t kOverflowEpisodes = 0x118;
inline constexpr uint32_t kRecordsDropped = 0x11C;
inline constexpr uint32_t kHalfwordsRetired = 0x120;
inline constexpr uint32_t kStatus = 0x124;
inline constexpr uint32_t kMutant = 0x128;

// trTeControl bits.
inline constexpr uint32_t kActive = 1u << 0;
inline constexpr uint32_t kEnable = 1u << 1;
inline constexpr uint32_t kInstTracing = 1u << 2;
inline constexpr uint32_t kEmpty = 1u << 3;
inline constexpr uint32_t kStallOrOverflow = 1u << 12;

// trTeInstMode values (bits 6:4).
inline constexpr uint8_t kInstModeBtm = 3;  ///< branch trace messaging
inline constexpr uint8_t kInstModeHtm = 6;  ///< history trace messaging
// trTeInstSyncMode values (bits 17:16).
inline constexpr uint8_t kSyncModeOff = 0;
inline constexpr uint8_t kSyncModeMessages = 1;   ///< a sync every 2^(max+4) messages
inline constexpr uint8_t kSyncModeHalfwords = 3;  ///< a sync every 2^(max+4) retired half-words

inline constexpr uint32_t Control(uint8_t mode, uint8_t sync_mode, uint8_t sync_max) {
  return (static_cast<uint32_t>(mode & 7) << 4) | (static_cast<uint32_t>(sync_mode & 3) << 16) |
         (static_cast<uint32_t>(sync_max & 15) << 20);
}

}  // namespace ctte::reg

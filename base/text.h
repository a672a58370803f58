// Text helpers every module shares: hex and decimal numbers, UTC time stamps, durations.
//
// One spelling per concept: a 64-bit value in text is "0x" and 16 lower-case hex digits
// (Hex64), a short hex value in a message is "0x" and as many digits as needed (HexShort), and a
// time stamp is ISO 8601 UTC to the second ("2026-12-01T09:34:02Z"). Parsers are strict: the
// whole text must be the number, and the error names `what` (a JSON path or a flag).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ctte {

/// "0x000000000000002a".
std::string Hex64(uint64_t v);
/// "0x2a" (addresses and register values in messages).
std::string HexShort(uint64_t v);

/// "0x" or "0X" followed by 1 to 16 hex digits. Errors name `what`.
Result<uint64_t> ParseHex64(std::string_view text, std::string_view what);
/// 1 to 20 decimal digits, at most 18446744073709551615. Errors name `what`.
Result<uint64_t> ParseDecimal64(std::string_view text, std::string_view what);
/// A seed or id as people write it: ParseHex64 when it starts with 0x, else ParseDecimal64.
Result<uint64_t> ParseU64Text(std::string_view text, std::string_view what);

/// `text` in double quotes for an error message: at most `max_bytes` of it (then "..." and the
/// full length, e.g. "aaaa..." (10485760 bytes)), control bytes shown as '?', so a hostile
/// value never floods a message.
std::string QuoteForMessage(std::string_view text, size_t max_bytes = 64);

/// The current time, ISO 8601 UTC to the second.
std::string NowIsoUtc();
/// "1.25 s", "3 min 07 s", "2 h 05 min" (progress lines and summaries).
std::string FormatDuration(double seconds);

}  // namespace ctte

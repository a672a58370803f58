// Small text helpers shared by the renderers: XML/HTML escaping, CSV quoting and fixed-precision
// numbers (printf "%.*f" in the C locale, so a report is byte-identical on every machine).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/text.h"  // Hex64, used by every renderer

namespace ctte::reports {

/// Escapes & < > " ' for XML/HTML text and attribute values; drops control characters other
/// than tab and newline (not allowed in XML 1.0).
std::string XmlEscape(std::string_view text);
/// RFC 4180: quoted (with "" for ") when the field holds a comma, quote, CR or LF.
std::string CsvField(std::string_view text);
/// "%.<digits>f"; "" when absent.
std::string Fixed(std::optional<double> value, int digits);
std::string Fixed(double value, int digits);
// Seeds and other 64-bit values are written with ctte::Hex64 (base/text.h).

}  // namespace ctte::reports

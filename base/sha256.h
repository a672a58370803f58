// SHA-256 and HMAC-SHA256 (OpenSSL adapter: the only file that includes OpenSSL headers).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ctte {

/// Lower-case hex SHA-256 of a byte buffer.
std::string Sha256Hex(std::span<const uint8_t> data);
std::string Sha256Hex(std::string_view data);
/// Lower-case hex SHA-256 of a file's contents, streamed.
Result<std::string> Sha256File(const std::string& path);
/// Lower-case hex HMAC-SHA256(key, data).
std::string HmacSha256Hex(std::string_view key, std::span<const uint8_t> data);

}  // namespace ctte

// Shard assignment and the I/N flag (runner/shard.h).
#include "runner/shard.h"

#include <charconv>

#include "base/check.h"

namespace ctte::runner {
namespace {

/// A decimal number with no sign, spaces or leading '+'.
bool ParseDecimal(std::string_view text, uint32_t* out) {
  if (text.empty() || text.size() > 9) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

uint32_t ShardOf(uint64_t index, uint32_t count) {
  CTTE_CHECK(count >= 1, "ShardOf: shard count must be at least 1");
  return static_cast<uint32_t>((index / 2) % count);
}

Result<ShardSpec> ParseShard(std::string_view text) {
  const auto bad = [&] {
    return Status::InvalidArgument("--shard: expected I/N with 1 <= I <= N, got '" +
                                   std::string(text) + "'");
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  uint32_t i = 0, n = 0;
  if (!ParseDecimal(text.substr(0, slash), &i) || !ParseDecimal(text.substr(slash + 1), &n)) {
    return bad();
  }
  if (i < 1 || i > n) return bad();
  if (n > kMaxShards) {
    return Status::InvalidArgument("--shard: at most " + std::to_string(kMaxShards) +
                                   " shards, got '" + std::string(text) + "'");
  }
  return ShardSpec{i - 1, n};
}

std::string ShardText(const ShardSpec& shard) {
  return std::to_string(shard.index + 1) + "/" + std::to_string(shard.count);
}

std::vector<uint64_t> ShardIndices(const ShardSpec& shard, uint64_t runs) {
  std::vector<uint64_t> out;
  for (uint64_t pair = shard.index; 2 * pair < runs; pair += shard.count) {
    out.push_back(2 * pair);
    if (2 * pair + 1 < runs) out.push_back(2 * pair + 1);
  }
  return out;
}

}  // namespace ctte::runner

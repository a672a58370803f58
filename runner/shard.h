// Sharding a campaign over several lab runners (issue 17): shard I of N runs a fixed subset of
// the run indices, and the shards' databases are merged afterwards (db/merge.h, docs/ci.md).
//
// Contract: the assignment is a pure function of (index, N). It reads no spec, clock or
// environment, so every runner computes the same partition, and a resumed or re-run shard runs
// exactly the indices it ran before. The unit of assignment is the index pair (2k, 2k+1):
//
//   ShardOf(i, N) = (i / 2) mod N          shards numbered 0 .. N-1
//
// A determinism twin is always an odd index i repeating i - 1 (runner/draw.h, IsTwin), so it
// shares its original's pair and therefore its shard. Pairs go round robin, so for any run
// count the shards' pair counts differ by at most one (run counts by at most two), and a
// budget-limited shard that runs its own indices in increasing order covers the campaign's
// prefix evenly with the other shards.
//
// On the command line shards are written I/N with 1 <= I <= N (1-based, as GitLab's
// CI_NODE_INDEX/CI_NODE_TOTAL give them); ShardSpec stores the 0-based index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ctte::runner {

struct ShardSpec {
  uint32_t index = 0;  ///< 0-based: 0 .. count - 1
  uint32_t count = 1;  ///< N >= 1; count 1 is the whole campaign
  bool operator==(const ShardSpec&) const = default;
};

/// The largest N accepted by ParseShard.
inline constexpr uint32_t kMaxShards = 4096;

/// The 0-based shard that runs `index` out of `count` shards. Precondition: count >= 1.
uint32_t ShardOf(uint64_t index, uint32_t count);

/// True when shard `shard` runs `index`.
inline bool InShard(const ShardSpec& shard, uint64_t index) {
  return ShardOf(index, shard.count) == shard.index;
}

/// Parses "I/N" (1-based I, 1 <= I <= N <= kMaxShards). Errors are InvalidArgument and name the
/// flag: "--shard: expected I/N with 1 <= I <= N, got '0/3'".
Result<ShardSpec> ParseShard(std::string_view text);

/// "I/N" (1-based), the inverse of ParseShard.
std::string ShardText(const ShardSpec& shard);

/// The indices below `runs` that `shard` runs, in increasing order.
std::vector<uint64_t> ShardIndices(const ShardSpec& shard, uint64_t runs);

}  // namespace ctte::runner

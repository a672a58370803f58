// Scheduler: which run index each soak worker (one per board) takes next.
//
// Contract:
//  - Indices are handed out in increasing order from 0, each exactly once; indices finished in
//    an earlier session (`done_before`, resume) are skipped. SetLimit(n) stops at index n;
//    SetDeadline(t) stops handing out runs once t has passed (a resume runs the rest).
//    SetShard(s) skips the indices of other shards (soak --shard I/N).
//  - A determinism twin (is_twin(i): run i repeats run i - 1) never starts while its original
//    is in flight: it waits in a deferred set. Once the original finished it goes to another
//    board than the original's while another worker is still active, else to any board.
//  - Image affinity: a board holds one image at a time (one fabric slot). A board first takes
//    deferred runs of the image it holds; it passes over (defers, at most kAffinityLookahead at
//    a time) fresh runs of another image that some other active board holds and could take.
//  - Next() blocks while nothing is pickable but deferred runs remain (e.g. a twin waiting for
//    its original), and returns nullopt when the worker should stop: Stop() was called, nothing
//    is left, or the deadline passed (deferred runs are then not started).
//  - Finish() keeps the board record of an original whose twin is next (TakeRecord() hands it
//    to the twin once).
//  - Health (runner/board_health.h): Requeue() gives an unfinished run back (its board is
//    quarantined or cannot be reopened); it then goes to another board while one is active.
//    Suspend() takes a quarantined board out of the active set, Resume() puts it back. While a
//    run is in flight, Next() waits rather than return nullopt, so a run given back always finds
//    a worker.
//
// Threading: every method may be called from any worker thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "runner/campaign_spec.h"
#include "runner/shard.h"
#include "runner/soak_boards.h"

namespace ctte::runner {

class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;
  using ImageOfFn = std::function<std::string(uint64_t index)>;
  using IsTwinFn = std::function<bool(uint64_t index)>;

  /// At most this many fresh runs are passed over for affinity at a time.
  static constexpr uint64_t kAffinityLookahead = 16;

  Scheduler(ImageOfFn image_of, IsTwinFn is_twin, std::set<uint64_t> done_before,
            unsigned workers);
  /// image_of = Draw(spec, i).image, is_twin = IsTwin(spec, i). `spec` must outlive this.
  static Scheduler ForSpec(const CampaignSpec& spec, std::set<uint64_t> done_before,
                           unsigned workers);

  void SetLimit(uint64_t runs);
  void SetDeadline(Clock::time_point t);
  /// Hands out only the fresh indices of this shard (runner/shard.h); default: all.
  void SetShard(ShardSpec shard);

  /// The next index for `board`, which holds `loaded_image` ("" when none yet), or nullopt
  /// when this worker should stop.
  std::optional<uint64_t> Next(unsigned board, const std::string& loaded_image);
  /// Run `index` on `board` is done; `record` is what the board showed (kept for a twin).
  void Finish(uint64_t index, unsigned board, std::optional<BoardRunRecord> record);
  /// The record of `original` kept for its twin, once.
  std::optional<BoardRunRecord> TakeRecord(uint64_t original);
  /// `board`'s worker leaves the loop (it takes no more runs).
  void WorkerExits(unsigned board);
  /// Run `index` (in flight on `board`) was not finished: hand it to another board.
  void Requeue(uint64_t index, unsigned board);
  /// Whether a board other than `board` is active (not quarantined, not exited).
  bool OtherActive(unsigned board);
  /// `board` is quarantined (not active) / back from quarantine.
  void Suspend(unsigned board);
  void Resume(unsigned board);
  /// Boards active now.
  unsigned active();
  /// Nothing is left to hand out to anyone: stopped, the deadline passed, or every index done.
  bool Exhausted();
  /// Every Next() returns nullopt from now on.
  void Stop();

 private:
  // All private methods are called with mu_ held.
  bool FreshExhausted() const { return limit_ && next_fresh_ >= *limit_; }
  const std::string& ImageOf(uint64_t i);
  /// Another active board holds run i's image and may take run i.
  bool BetterBoard(uint64_t i, unsigned board);
  bool Pickable(uint64_t i, unsigned board) const;
  /// Hands run i to `board`.
  uint64_t Claim(uint64_t i, unsigned board);
  /// Takes the first deferred run that `board` may pick and `accept` accepts.
  std::optional<uint64_t> TakeDeferred(unsigned board,
                                       const std::function<bool(uint64_t)>& accept);

  const ImageOfFn image_of_;
  const IsTwinFn is_twin_;
  const std::set<uint64_t> done_before_;
  std::optional<uint64_t> limit_;
  std::optional<Clock::time_point> deadline_;
  ShardSpec shard_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_fresh_ = 0;
  std::set<uint64_t> deferred_;
  std::map<uint64_t, unsigned> in_flight_, finished_by_;
  std::map<uint64_t, BoardRunRecord> records_;
  std::map<uint64_t, std::string> images_;   ///< image per index (cache of image_of_)
  std::map<unsigned, std::string> loaded_;   ///< image each active board holds
  std::set<uint64_t> passed_;                ///< deferred for affinity, not yet taken
  std::map<uint64_t, unsigned> avoid_;       ///< requeued runs: the board that gave them back
  std::set<unsigned> suspended_;             ///< quarantined boards
  unsigned active_;
  bool stop_ = false;
};

}  // namespace ctte::runner

// Scheduler (see scheduler.h). Next() tries, in order: deferred runs of the image the board
// holds; any deferred run no better-placed board should take; fresh indices (deferring twins
// whose original is busy and, for affinity, runs of an image another board holds); once fresh
// indices are exhausted, any pickable deferred run. Otherwise it waits for a Finish().
#include "runner/scheduler.h"

#include "runner/draw.h"

namespace ctte::runner {

Scheduler::Scheduler(ImageOfFn image_of, IsTwinFn is_twin, std::set<uint64_t> done_before,
                     unsigned workers)
    : image_of_(std::move(image_of)),
      is_twin_(std::move(is_twin)),
      done_before_(std::move(done_before)),
      active_(workers) {}

Scheduler Scheduler::ForSpec(const CampaignSpec& spec, std::set<uint64_t> done_before,
                             unsigned workers) {
  return Scheduler([&spec](uint64_t i) { return Draw(spec, i).image; },
                   [&spec](uint64_t i) { return IsTwin(spec, i); }, std::move(done_before),
                   workers);
}

void Scheduler::SetLimit(uint64_t runs) {
  std::lock_guard<std::mutex> lk(mu_);
  limit_ = runs;
}

void Scheduler::SetShard(ShardSpec shard) {
  std::lock_guard<std::mutex> lk(mu_);
  shard_ = shard;
}

void Scheduler::SetDeadline(Clock::time_point t) {
  std::lock_guard<std::mutex> lk(mu_);
  deadline_ = t;
}

std::optional<uint64_t> Scheduler::Next(unsigned board, const std::string& loaded_image) {
  std::unique_lock<std::mutex> lk(mu_);
  loaded_[board] = loaded_image;
  while (true) {
    if (stop_) return std::nullopt;
    if (auto i = TakeDeferred(board, [&](uint64_t d) { return ImageOf(d) == loaded_image; })) {
      return i;
    }
    if (auto i = TakeDeferred(
            board, [&](uint64_t d) { return !BetterBoard(d, board) || FreshExhausted(); })) {
      return i;
    }
    const bool time_left = !deadline_ || Clock::now() < *deadline_;
    while (time_left && !FreshExhausted()) {
      const uint64_t i = next_fresh_++;
      if (done_before_.count(i) || !InShard(shard_, i)) continue;  // done, or another shard's
      if (!loaded_image.empty() && ImageOf(i) != loaded_image && BetterBoard(i, board) &&
          passed_.size() < kAffinityLookahead) {
        passed_.insert(i);  // another board holds this image: leave it to that board
        deferred_.insert(i);
        continue;
      }
      if (Pickable(i, board)) return Claim(i, board);
      deferred_.insert(i);
    }
    if (time_left && FreshExhausted()) {
      // Nothing fresh is left: take any pickable deferred run rather than wait.
      if (auto i = TakeDeferred(board, [](uint64_t) { return true; })) return i;
    }
    // Under a spent budget deferred runs are not started (a resume runs them later). A run in
    // flight may still be given back (Requeue): wait for it.
    if (!time_left || (deferred_.empty() && in_flight_.empty())) return std::nullopt;
    cv_.wait(lk);
  }
}

void Scheduler::Finish(uint64_t index, unsigned board, std::optional<BoardRunRecord> record) {
  std::lock_guard<std::mutex> lk(mu_);
  in_flight_.erase(index);
  finished_by_[index] = board;
  if (record && is_twin_(index + 1)) records_[index] = std::move(*record);
  cv_.notify_all();
}

std::optional<BoardRunRecord> Scheduler::TakeRecord(uint64_t original) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = records_.find(original);
  if (it == records_.end()) return std::nullopt;
  BoardRunRecord r = std::move(it->second);
  records_.erase(it);
  return r;
}

void Scheduler::WorkerExits(unsigned board) {
  std::lock_guard<std::mutex> lk(mu_);
  loaded_.erase(board);
  if (suspended_.erase(board) == 0) --active_;  // a quarantined board was counted out already
  cv_.notify_all();
}

void Scheduler::Requeue(uint64_t index, unsigned board) {
  std::lock_guard<std::mutex> lk(mu_);
  in_flight_.erase(index);
  deferred_.insert(index);
  avoid_[index] = board;
  cv_.notify_all();
}

bool Scheduler::OtherActive(unsigned board) {
  std::lock_guard<std::mutex> lk(mu_);
  const unsigned me = suspended_.count(board) ? 0 : 1;
  return active_ > me;
}

void Scheduler::Suspend(unsigned board) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!suspended_.insert(board).second) return;
  loaded_.erase(board);
  --active_;
  cv_.notify_all();
}

void Scheduler::Resume(unsigned board) {
  std::lock_guard<std::mutex> lk(mu_);
  if (suspended_.erase(board) == 0) return;
  ++active_;
  cv_.notify_all();
}

unsigned Scheduler::active() {
  std::lock_guard<std::mutex> lk(mu_);
  return active_;
}

bool Scheduler::Exhausted() {
  std::lock_guard<std::mutex> lk(mu_);
  if (stop_ || (deadline_ && Clock::now() >= *deadline_)) return true;
  return FreshExhausted() && deferred_.empty() && in_flight_.empty();
}

void Scheduler::Stop() {
  std::lock_guard<std::mutex> lk(mu_);
  stop_ = true;
  cv_.notify_all();
}

const std::string& Scheduler::ImageOf(uint64_t i) {
  auto it = images_.find(i);
  if (it == images_.end()) it = images_.emplace(i, image_of_(i)).first;
  return it->second;
}

bool Scheduler::BetterBoard(uint64_t i, unsigned board) {
  const std::string& image = ImageOf(i);
  for (const auto& [b, img] : loaded_) {
    if (b != board && img == image && Pickable(i, b)) return true;
  }
  return false;
}

bool Scheduler::Pickable(uint64_t i, unsigned board) const {
  if (auto a = avoid_.find(i); a != avoid_.end() && a->second == board && active_ > 1) return false;
  if (!is_twin_(i)) return true;
  const uint64_t original = i - 1;
  if (in_flight_.count(original)) return false;
  auto by = finished_by_.find(original);
  // On another board when another worker is still taking runs.
  return by == finished_by_.end() || by->second != board || active_ <= 1;
}

uint64_t Scheduler::Claim(uint64_t i, unsigned board) {
  in_flight_[i] = board;
  loaded_[board] = ImageOf(i);  // the board holds run i's image from now on
  return i;
}

std::optional<uint64_t> Scheduler::TakeDeferred(unsigned board,
                                                const std::function<bool(uint64_t)>& accept) {
  for (auto it = deferred_.begin(); it != deferred_.end(); ++it) {
    const uint64_t i = *it;
    if (!Pickable(i, board) || !accept(i)) continue;
    deferred_.erase(it);
    passed_.erase(i);
    return Claim(i, board);
  }
  return std::nullopt;
}

}  // namespace ctte::runner

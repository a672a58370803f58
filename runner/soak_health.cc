// The soak worker's board health (see soak_health.h and board_health.h).
#include "runner/soak_health.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "runner/run_status.h"

namespace ctte::runner::soak_internal {

void BoardHealth::Note(const RunOutcome& out) {
  if (out.status == RunStatus::kInfra && IsRetryable(out.cause)) {
    ++consecutive_;
    reason_ = std::to_string(consecutive_) + " infra failure(s) in a row, the last: " +
              out.status_reason;
  } else if (out.status != RunStatus::kInfra) {
    consecutive_ = 0;
  }
}

bool BoardHealth::QuarantineDue() const {
  const unsigned k = s_->options->health.quarantine_after;
  return lost_ || (k > 0 && consecutive_ >= k);
}

std::vector<RunAttempt> BoardHealth::TakeHanded(uint64_t index) {
  std::lock_guard<std::mutex> lk(s_->mu);
  auto it = s_->handed.find(index);
  if (it == s_->handed.end()) return {};
  std::vector<RunAttempt> a = std::move(it->second);
  s_->handed.erase(it);
  return a;
}

void BoardHealth::Handoff(uint64_t index, std::vector<RunAttempt> attempts) {
  {
    std::lock_guard<std::mutex> lk(s_->mu);
    s_->handed[index] = std::move(attempts);
  }
  Log(*s_, LogLevel::kWarn,
      name_ + ": run " + std::to_string(index) + " goes to another board (" + reason_ + ")");
  s_->scheduler->Requeue(index, slot_);
}

void BoardHealth::NoteGreen(const RunConfig& config, const RunOutcome& out) {
  if (out.status != RunStatus::kGreen || config.twin_of || out.stream_sha256.empty()) return;
  std::lock_guard<std::mutex> lk(s_->mu);
  if (s_->known_green && s_->known_green_wall <= out.wall_seconds) return;
  s_->known_green = config;
  s_->known_green_sha = out.stream_sha256;
  s_->known_green_wall = out.wall_seconds;
}

std::optional<std::pair<RunConfig, std::string>> BoardHealth::HealthConfig() {
  std::lock_guard<std::mutex> lk(s_->mu);
  ++s_->health[slot_].health_checks;
  if (!s_->known_green) return std::nullopt;
  return std::make_pair(*s_->known_green, s_->known_green_sha);
}

void BoardHealth::Quarantine(const std::function<bool()>& check) {
  const HealthOptions& h = s_->options->health;
  if (h.before_quarantine) {
    // The seam (issue 18: power-cycle the board first): true = it brought the board back.
    const QuarantineRequest q{slot_, name_, reason_, consecutive_};
    if (h.before_quarantine(q) && check()) {
      Log(*s_, LogLevel::kInfo, name_ + ": recovered before quarantine");
      consecutive_ = 0;
      lost_ = false;
      return;
    }
  }
  {
    std::lock_guard<std::mutex> lk(s_->mu);
    BoardHealthReport& r = s_->health[slot_];
    r.quarantined = true;
    ++r.quarantines;
    r.reason = reason_;
  }
  Log(*s_, LogLevel::kError, name_ + ": quarantined: " + reason_);
  s_->scheduler->Suspend(slot_);
  if (s_->scheduler->active() == 0) {
    std::string names;
    {
      std::lock_guard<std::mutex> lk(s_->mu);
      for (const BoardHealthReport& r : s_->health) {
        if (r.quarantined) names += (names.empty() ? "" : "; ") + r.board + " (" + r.reason + ")";
      }
      if (s_->fatal.empty()) s_->fatal = "every board is quarantined: " + names;
    }
    Log(*s_, LogLevel::kError, "every board is quarantined: the soak stops");
    s_->scheduler->Stop();
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto every = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(h.health_check_after_seconds, 0.01)));
  auto next = Clock::now() + every;
  while (!s_->scheduler->Exhausted() && !s_->abandon.load()) {
    if (Clock::now() >= next) {
      if (check()) {
        {
          std::lock_guard<std::mutex> lk(s_->mu);
          s_->health[slot_].quarantined = false;
          ++s_->health[slot_].readmissions;
        }
        consecutive_ = 0;
        lost_ = false;
        Log(*s_, LogLevel::kInfo, name_ + ": re-admitted after a passed health check");
        s_->scheduler->Resume(slot_);
        return;
      }
      next = Clock::now() + every;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace ctte::runner::soak_internal

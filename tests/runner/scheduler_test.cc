// Scheduler: every index exactly once, resume skipping, limits and deadlines, twin ordering and
// image affinity, without boards (runner/scheduler.h).
#include "runner/scheduler.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ctte::runner {
namespace {

using Images = std::map<uint64_t, std::string>;

Scheduler::ImageOfFn OneImage() {
  return [](uint64_t) { return std::string("A"); };
}
Scheduler::ImageOfFn ImagesOf(Images images) {
  return [images](uint64_t i) { return images.at(i); };
}
Scheduler::IsTwinFn NoTwins() {
  return [](uint64_t) { return false; };
}
Scheduler::IsTwinFn OddAreTwins() {
  return [](uint64_t i) { return i % 2 == 1; };
}

TEST(SchedulerTest, HandsOutIndicesInOrderUpToTheLimit) {
  Scheduler s(OneImage(), NoTwins(), {}, 1);
  s.SetLimit(5);
  for (uint64_t want = 0; want < 5; ++want) {
    std::optional<uint64_t> i = s.Next(0, "A");
    ASSERT_TRUE(i.has_value());
    EXPECT_EQ(*i, want);
    s.Finish(*i, 0, std::nullopt);
  }
  EXPECT_FALSE(s.Next(0, "A").has_value());
}

TEST(SchedulerTest, ResumeSkipsTheIndicesAlreadyDone) {
  Scheduler s(OneImage(), NoTwins(), {0, 2, 3}, 1);
  s.SetLimit(6);
  std::vector<uint64_t> got;
  while (std::optional<uint64_t> i = s.Next(0, "")) {
    got.push_back(*i);
    s.Finish(*i, 0, std::nullopt);
  }
  EXPECT_EQ(got, (std::vector<uint64_t>{1, 4, 5}));
}

TEST(SchedulerTest, ASpentDeadlineHandsOutNothing) {
  Scheduler s(OneImage(), NoTwins(), {}, 1);
  s.SetDeadline(Scheduler::Clock::now() - std::chrono::seconds(1));
  EXPECT_FALSE(s.Next(0, "").has_value());
}

TEST(SchedulerTest, ADeadlineStopsAnOpenEndedCampaign) {
  Scheduler s(OneImage(), NoTwins(), {}, 1);
  s.SetDeadline(Scheduler::Clock::now() + std::chrono::milliseconds(50));
  uint64_t runs = 0;
  while (std::optional<uint64_t> i = s.Next(0, "A")) {
    EXPECT_EQ(*i, runs++);
    s.Finish(*i, 0, std::nullopt);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(runs, 0u);
  EXPECT_LT(runs, 50u);
}

TEST(SchedulerTest, StopEndsEveryWorker) {
  Scheduler s(OneImage(), NoTwins(), {}, 2);
  s.Stop();
  EXPECT_FALSE(s.Next(0, "").has_value());
  EXPECT_FALSE(s.Next(1, "").has_value());
}

TEST(SchedulerTest, ATwinWaitsForItsOriginalAndGoesToAnotherBoard) {
  Scheduler s(OneImage(), OddAreTwins(), {}, 2);
  s.SetLimit(6);
  EXPECT_EQ(s.Next(0, ""), 0u);
  EXPECT_EQ(s.Next(1, ""), 2u);  // 1 repeats 0, which is in flight: deferred
  s.Finish(0, 0, std::nullopt);
  EXPECT_EQ(s.Next(0, "A"), 4u);  // 1 must not run on board 0, which ran 0; 3 waits for 2
  s.Finish(2, 1, std::nullopt);
  EXPECT_EQ(s.Next(1, "A"), 1u);  // board 1 did not run 0
  s.Finish(4, 0, std::nullopt);
  EXPECT_EQ(s.Next(0, "A"), 3u);  // 3 repeats 2, which board 1 ran
  s.Finish(1, 1, std::nullopt);
  EXPECT_EQ(s.Next(1, "A"), 5u);  // 5 repeats 4, which board 0 ran
  s.Finish(3, 0, std::nullopt);
  s.Finish(5, 1, std::nullopt);
  EXPECT_FALSE(s.Next(0, "A").has_value());
  EXPECT_FALSE(s.Next(1, "A").has_value());
}

TEST(SchedulerTest, ATwinRunsOnTheSameBoardWhenNoOtherWorkerIsLeft) {
  Scheduler s(OneImage(), OddAreTwins(), {}, 2);
  s.SetLimit(2);
  EXPECT_EQ(s.Next(0, ""), 0u);
  s.WorkerExits(1);
  s.Finish(0, 0, std::nullopt);
  EXPECT_EQ(s.Next(0, "A"), 1u);
}

TEST(SchedulerTest, ATwinAfterAResumeRunsWhenItsOriginalWasDoneBefore) {
  Scheduler s(OneImage(), OddAreTwins(), {0}, 2);
  s.SetLimit(2);
  EXPECT_EQ(s.Next(0, ""), 1u);
}

TEST(SchedulerTest, TheOriginalsRecordGoesToItsTwinOnce) {
  Scheduler s(OneImage(), OddAreTwins(), {}, 1);
  BoardRunRecord rec;
  rec.receipt.sha256 = "abc";
  s.Finish(0, 0, rec);
  s.Finish(1, 0, rec);  // 2 is no twin: nothing kept for it
  std::optional<BoardRunRecord> got = s.TakeRecord(0);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->receipt.sha256, "abc");
  EXPECT_FALSE(s.TakeRecord(0).has_value());
  EXPECT_FALSE(s.TakeRecord(1).has_value());
}

TEST(SchedulerTest, ABoardLeavesRunsOfAnotherBoardsImageToThatBoard) {
  Scheduler s(ImagesOf({{0, "A"}, {1, "B"}, {2, "B"}, {3, "A"}}), NoTwins(), {}, 2);
  s.SetLimit(4);
  EXPECT_EQ(s.Next(0, "A"), 0u);
  EXPECT_EQ(s.Next(1, "B"), 1u);
  s.Finish(0, 0, std::nullopt);
  s.Finish(1, 1, std::nullopt);
  EXPECT_EQ(s.Next(0, "A"), 3u);  // 2 is B's: board 1 holds B
  EXPECT_EQ(s.Next(1, "B"), 2u);  // board 1 takes it from the deferred set
}

TEST(SchedulerTest, ABoardTakesAnotherImageWhenNoBoardHoldsIt) {
  Scheduler s(ImagesOf({{0, "A"}, {1, "C"}}), NoTwins(), {}, 2);
  s.SetLimit(2);
  EXPECT_EQ(s.Next(1, "B"), 0u);  // nobody holds A
  s.Finish(0, 1, std::nullopt);
  EXPECT_EQ(s.Next(0, "A"), 1u);
}

// Three workers drain a campaign with twins and three images; each index is handed out exactly
// once, and no twin starts while its original is in flight. (A twin whose original was passed
// over for affinity and not yet taken may start first; it is then judged against a fresh run
// of the plan, as after a resume. See the soak.h contract.)
TEST(SchedulerTest, WorkersInParallelRunEveryIndexExactlyOnce) {
  constexpr uint64_t kRuns = 300;
  const auto image_of = [](uint64_t i) {
    return std::string(1, static_cast<char>('A' + (i * 7 / 3) % 3));
  };
  const auto is_twin = [](uint64_t i) { return i % 4 == 1; };
  Scheduler s(image_of, is_twin, {5, 6, 7}, 3);
  s.SetLimit(kRuns);
  std::mutex mu;
  std::map<uint64_t, int> handed;
  std::set<uint64_t> in_flight;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (unsigned b = 0; b < 3; ++b) {
    threads.emplace_back([&, b] {
      std::string loaded;
      while (std::optional<uint64_t> i = s.Next(b, loaded)) {
        {
          std::lock_guard<std::mutex> lk(mu);
          ++handed[*i];
          if (is_twin(*i) && in_flight.count(*i - 1)) {
            errors.push_back("twin " + std::to_string(*i) + " while its original runs");
          }
          in_flight.insert(*i);
        }
        loaded = image_of(*i);
        std::this_thread::yield();
        {
          std::lock_guard<std::mutex> lk(mu);
          in_flight.erase(*i);
        }
        s.Finish(*i, b, std::nullopt);
      }
      s.WorkerExits(b);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(handed.size(), kRuns - 3);
  for (uint64_t i = 0; i < kRuns; ++i) {
    if (i >= 5 && i <= 7) {
      EXPECT_EQ(handed.count(i), 0u) << i;
    } else {
      EXPECT_EQ(handed[i], 1) << i;
    }
  }
}

}  // namespace
}  // namespace ctte::runner

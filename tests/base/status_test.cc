#include "base/status.h"

#include <gtest/gtest.h>

namespace ctte {
namespace {

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ToStringNamesCodeAndMessage) {
  Status s = Status::InvalidArgument("campaign.seed: must be an unsigned 64-bit integer");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "InvalidArgument: campaign.seed: must be an unsigned 64-bit integer");
}

TEST(StatusTest, ResultHoldsValueOrStatus) {
  Result<int> good(5);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 5);
  Result<int> bad(Status::NotFound("x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kNotFound);
}

constexpr char kDomain[] = "test.domain";

TEST(StatusTest, DetailBelongsToItsDomainAndLeavesTheTextAlone) {
  const Status plain = Status::Unavailable("board died: signal 9");
  EXPECT_EQ(plain.detail(kDomain), 0);
  const Status s = plain.WithDetail(kDomain, 3);
  EXPECT_EQ(s.detail(kDomain), 3);
  EXPECT_EQ(s.detail("other.domain"), 0);
  EXPECT_EQ(s.ToString(), plain.ToString());
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  const Status copy = s;  // travels with copies
  EXPECT_EQ(copy.detail(kDomain), 3);
}

Result<int> Half(int v) {
  if (v % 2 != 0) return Status::InvalidArgument("odd: " + std::to_string(v));
  return v / 2;
}

Result<int> Quarter(int v) {
  CTTE_ASSIGN_OR_RETURN(const int half, Half(v));
  CTTE_ASSIGN_OR_RETURN(auto quarter, Half(half));
  return quarter;
}

Status QuarterInto(int v, int* out) {
  CTTE_ASSIGN_OR_RETURN(*out, Quarter(v));
  return Status::Ok();
}

TEST(StatusTest, AssignOrReturnAssignsOrPropagates) {
  EXPECT_EQ(*Quarter(12), 3);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd: 3");
  int out = 0;
  EXPECT_TRUE(QuarterInto(8, &out).ok());
  EXPECT_EQ(out, 2);
  EXPECT_EQ(QuarterInto(2, &out).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(out, 2);
}

TEST(StatusDeathTest, ResultRefusesAnOkStatus) {
  EXPECT_DEATH(Result<int>{Status::Ok()}, "Result constructed from an OK Status");
}

TEST(StatusDeathTest, DetailOnAnOkStatusIsRefused) {
  EXPECT_DEATH((void)Status::Ok().WithDetail(kDomain, 1), "a detail needs a failed status");
}

}  // namespace
}  // namespace ctte

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

}  // namespace
}  // namespace ctte

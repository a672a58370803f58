// Failure kinds are data: set by the constructors, read by ClassifyFailure, carried by the
// protocol's error object, never inferred from the message text.
#include "lab/failure.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lab/wire.h"

namespace ctte::lab {
namespace {

TEST(FailureTest, ConstructorsSetTheKindAndKeepTheirMessages) {
  const Status rtl = RtlAssertionError("ctte_frontend.sv:88: recovery sync I-CNT != 0");
  EXPECT_EQ(ClassifyFailure(rtl), FailureKind::kRtlAssertion);
  EXPECT_EQ(rtl.ToString(),
            "Internal: RTL assertion: ctte_frontend.sv:88: recovery sync I-CNT != 0");
  const Status died = BoardDiedError("signal 11 (SIGSEGV)");
  EXPECT_EQ(ClassifyFailure(died), FailureKind::kBoardDied);
  EXPECT_EQ(died.ToString(), "Unavailable: board died: signal 11 (SIGSEGV)");
  const Status slow = BoardTimeoutError("30 s (op run); board killed");
  EXPECT_EQ(ClassifyFailure(slow), FailureKind::kBoardTimeout);
  EXPECT_EQ(slow.ToString(), "Timeout: board timeout after 30 s (op run); board killed");
  const Status torn = StreamTruncatedError("stream ended inside a frame at stream offset 7");
  EXPECT_EQ(ClassifyFailure(torn), FailureKind::kStreamTruncated);
  EXPECT_EQ(torn.code(), Status::Code::kCorruption);
}

TEST(FailureTest, TheMessageTextDecidesNothing) {
  EXPECT_EQ(ClassifyFailure(Status::Internal("RTL assertion: looks like one")),
            FailureKind::kOther);
  EXPECT_EQ(ClassifyFailure(Status::Unavailable("board died: looks like one")),
            FailureKind::kOther);
  EXPECT_EQ(ClassifyFailure(Status::InvalidArgument("x")), FailureKind::kOther);
  EXPECT_EQ(ClassifyFailure(Status::Ok()), FailureKind::kNone);
  // Another module's detail is not a failure kind.
  EXPECT_EQ(ClassifyFailure(Status::Internal("x").WithDetail("other.domain", 1)),
            FailureKind::kOther);
}

TEST(FailureTest, NamesRoundTrip) {
  for (FailureKind k : {FailureKind::kRtlAssertion, FailureKind::kBoardDied,
                        FailureKind::kBoardTimeout, FailureKind::kStreamTruncated,
                        FailureKind::kOther}) {
    EXPECT_EQ(ParseFailureKind(FailureKindName(k)), k) << FailureKindName(k);
  }
  EXPECT_STREQ(FailureKindName(FailureKind::kRtlAssertion), "rtl_assertion");
  EXPECT_EQ(ParseFailureKind("from_a_newer_board"), FailureKind::kOther);
}

TEST(FailureTest, ErrorObjectCarriesCodeKindAndMessage) {
  const wire::Json j = wire::StatusToJson(BoardDiedError("signal 9 (SIGKILL)"));
  EXPECT_EQ(j.dump(), R"j({"code":"Unavailable","kind":"board_died",)j"
                      R"j("message":"board died: signal 9 (SIGKILL)"})j");
  const Status back = wire::StatusFromJson(j);
  EXPECT_EQ(ClassifyFailure(back), FailureKind::kBoardDied);
  EXPECT_EQ(back.ToString(), "Unavailable: board died: signal 9 (SIGKILL)");
  EXPECT_EQ(wire::StatusToJson(Status::NotFound("x"))["kind"], "other");
}

TEST(FailureTest, ErrorObjectWithoutOrWithAnUnknownKindIsOther) {
  const Status a = wire::StatusFromJson(
      wire::Json{{"code", "Internal"}, {"message", "RTL assertion: from an old board"}});
  EXPECT_EQ(a.code(), Status::Code::kInternal);
  EXPECT_EQ(ClassifyFailure(a), FailureKind::kOther);
  const Status b = wire::StatusFromJson(
      wire::Json{{"code", "Timeout"}, {"kind", 7}, {"message", "m"}});
  EXPECT_EQ(ClassifyFailure(b), FailureKind::kOther);
  EXPECT_EQ(ClassifyFailure(wire::StatusFromJson(wire::Json())), FailureKind::kOther);
}

}  // namespace
}  // namespace ctte::lab

#include "base/json.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/files.h"

namespace ctte {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

std::string Error(std::string_view text, const JsonLimits& limits = {}) {
  Result<Json> r = ParseJsonText(text, "spec.json", limits);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  return r.status().message();
}

TEST(JsonTest, ParsesAndKeepsKeyOrder) {
  Result<Json> r = ParseJsonText(R"({"b": 1, "a": [true, null, "x", -2, 2.5], "c": {}})", "t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dump(), R"({"b":1,"a":[true,null,"x",-2,2.5],"c":{}})");
}

TEST(JsonTest, DuplicateKeyAtDepthNamesPathAndOffset) {
  const std::string text = R"({"axes": {"mode": ["htm"], "mode": ["btm"]}})";
  const std::string e = Error(text);
  EXPECT_THAT(e, HasSubstr("spec.json: $.axes.mode: duplicate key \"mode\""));
  EXPECT_THAT(e, HasSubstr("at byte " + std::to_string(text.rfind("\"mode\""))));
  EXPECT_THAT(e, HasSubstr("line 1, column"));
}

TEST(JsonTest, DuplicateTopLevelNameIsRejected) {
  EXPECT_THAT(Error("{\"name\": \"a\",\n \"name\": \"b\"}"),
              HasSubstr("spec.json: $.name: duplicate key \"name\" at byte 15 (line 2, column 2)"));
}

TEST(JsonTest, DuplicateKeyInsideArrayElementNamesIndex) {
  EXPECT_THAT(Error(R"({"m": [{"value": 1}, {"value": 1, "weight": 2, "weight": 3}]})"),
              HasSubstr("$.m[1].weight: duplicate key"));
}

TEST(JsonTest, EscapedDuplicateKeyIsStillADuplicate) {
  // "a" and "\u0061" are the same key.
  EXPECT_THAT(Error(R"({"a": 1, "\u0061": 2})"), HasSubstr("$.a: duplicate key \"a\" at byte 9"));
}

TEST(JsonTest, OddKeysAreQuotedInPaths) {
  EXPECT_THAT(Error(R"({"a b": {"x.y": 1, "x.y": 2}})"),
              HasSubstr(R"($["a b"]["x.y"]: duplicate key)"));
}

TEST(JsonTest, NumberAboveDoubleRangeIsRejected) {
  const std::string e = Error(R"({"runs": 1e400})");
  EXPECT_THAT(e, HasSubstr("spec.json: $.runs: number 1e400 is out of range at byte 9"));
}

TEST(JsonTest, NegativeNumberBelowDoubleRangeIsRejected) {
  EXPECT_THAT(Error(R"({"clocks": {"fabric_mhz": -1e400}})"),
              HasSubstr("$.clocks.fabric_mhz: number -1e400 is out of range at byte 26"));
}

TEST(JsonTest, OutOfRangeNumberInArrayNamesIndex) {
  EXPECT_THAT(Error("[1, 2, 1e999]"), HasSubstr("$[2]: number 1e999 is out of range at byte 7"));
}

TEST(JsonTest, LargeFiniteNumbersAreAccepted) {
  Result<Json> r = ParseJsonText("[1e308, -1e308, 1.7976931348623157e308, 1e-400]", "t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].get<double>(), 1e308);
  EXPECT_EQ((*r)[3].get<double>(), 0.0);  // underflow to zero is not an error
}

TEST(JsonTest, IntegerLiteralBeyond64BitsIsRejected) {
  EXPECT_THAT(Error(R"({"seed": 18446744073709551616})"),
              HasSubstr("$.seed: integer 18446744073709551616 does not fit in 64 bits at byte 9"));
  EXPECT_THAT(Error("[-9223372036854775809]"), HasSubstr("$[0]: integer"));
  Result<Json> max = ParseJsonText("[18446744073709551615, -9223372036854775808]", "t");
  ASSERT_TRUE(max.ok());
  EXPECT_EQ((*max)[0].get<uint64_t>(), UINT64_MAX);
}

TEST(JsonTest, ByteOrderMarkIsRejectedClearly) {
  EXPECT_THAT(Error("\xEF\xBB\xBF{\"name\": \"smoke\"}"),
              HasSubstr("spec.json: $: starts with a UTF-8 byte-order mark; save it without"));
}

TEST(JsonTest, InvalidUtf8IsRejectedWithOffset) {
  EXPECT_THAT(Error("{\"name\": \"sm\xFFoke\"}"),
              HasSubstr("spec.json: $: invalid UTF-8 at byte 12 (line 1, column 13): byte \\xff"));
  EXPECT_THAT(Error("[\"\xC0\xAF\"]"), HasSubstr("invalid UTF-8 at byte 2"));      // overlong
  EXPECT_THAT(Error("[\"\xED\xA0\x80\"]"), HasSubstr("invalid UTF-8 at byte 2"));  // surrogate
  EXPECT_THAT(Error("[\"\xE2\x82\"]"), HasSubstr("invalid UTF-8 at byte 2"));      // truncated
  EXPECT_TRUE(ParseJsonText("[\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\"]", "t").ok());
}

TEST(JsonTest, DeepNestingIsRejectedAtTheLimit) {
  JsonLimits limits;
  limits.max_depth = 8;
  EXPECT_TRUE(ParseJsonText(std::string(8, '[') + std::string(8, ']'), "t", limits).ok());
  const std::string e = Error(std::string(9, '[') + std::string(9, ']'), limits);
  EXPECT_THAT(e, HasSubstr("$[0][0][0][0][0][0][0][0]: nested deeper than 8 levels"));
  EXPECT_THAT(e, HasSubstr("at byte 8"));
}

TEST(JsonTest, DefaultDepthLimitStopsAMillionBrackets) {
  const std::string deep(1000000, '[');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(Error(deep), HasSubstr("nested deeper than 64 levels"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(JsonTest, InputLargerThanLimitIsRejectedBeforeParsing) {
  JsonLimits limits;
  limits.max_bytes = 10;
  EXPECT_THAT(Error("[1, 2, 3, 4, 5]", limits),
              HasSubstr("spec.json: $: input is 15 bytes, more than the 10-byte limit"));
}

TEST(JsonTest, TooManyValuesAreRejected) {
  JsonLimits limits;
  limits.max_values = 4;
  EXPECT_TRUE(ParseJsonText("[1, 2, 3]", "t", limits).ok());
  EXPECT_THAT(Error("[1, 2, 3, 4]", limits), HasSubstr("$[3]: more than 4 values"));
}

// Growth, not a time limit: the parse of an object with 4N keys against N keys, in this
// thread's CPU time (the machine's load moves both alike), the best of three each. Linear
// work grows 4x; a per-key scan of the keys already read (the duplicate-key check done
// naively) grows 16x. The bound 10x sits between them.
double ParseCpuSeconds(int keys) {
  std::string text = "{";
  for (int i = 0; i < keys; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  text += "}";
  double best = 1e9;
  for (int round = 0; round < 3; ++round) {
    timespec a{}, b{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    Result<Json> r = ParseJsonText(text, "t");
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) {
      EXPECT_EQ(r->size(), static_cast<size_t>(keys));
    }
    best = std::min(best, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
  }
  return best;
}

TEST(JsonTest, AManyKeyObjectParsesInLinearTime) {
  // The least of three measurements each: a parallel ctest run shares the cores and the caches
  // (the single measurement failed once in a parallel `ctest -L unit -j2`).
  double small = 1e9, large = 1e9;
  for (int i = 0; i < 3; ++i) {
    small = std::min(small, ParseCpuSeconds(50000));
    large = std::min(large, ParseCpuSeconds(200000));
  }
  EXPECT_LT(large, 10 * small) << "50 000 keys: " << small << " s, 200 000 keys: " << large
                               << " s of CPU";
}

TEST(JsonTest, SyntaxErrorsNameSourcePathAndOffset) {
  EXPECT_THAT(Error(R"({"axes": {"mode": [tru]}})"),
              HasSubstr("spec.json: $.axes.mode[0]: invalid JSON: syntax error"));
  EXPECT_THAT(Error(R"({"a": 1,})"), HasSubstr("spec.json: $: invalid JSON:"));
  EXPECT_THAT(Error(R"({"a": 1} x)"), HasSubstr("at byte 9"));
  EXPECT_THAT(Error("[1, 2"), HasSubstr("$[2]: invalid JSON:"));
}

TEST(JsonTest, EmptyInputIsNamed) {
  EXPECT_THAT(Error(""), HasSubstr("spec.json: $: empty input"));
  EXPECT_THAT(Error(" \n\t"), HasSubstr("spec.json: $: empty input"));
}

TEST(JsonTest, ControlCharactersInErrorsArePrintable) {
  const std::string e = Error(std::string("[\"a\0b\"]", 7));
  EXPECT_EQ(e.find('\0'), std::string::npos);
  EXPECT_THAT(e, HasSubstr("spec.json: $[0]: invalid JSON"));
}

TEST(JsonTest, CommentsAreNotJson) { EXPECT_THAT(Error("[1] // no"), HasSubstr("invalid JSON")); }

class JsonFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctte_json_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const char* name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(JsonFileTest, ReadsARegularFile) {
  ASSERT_TRUE(WriteFileAtomic(Path("a.json"), std::string(R"({"x": 1})")).ok());
  Result<Json> r = ParseJsonFile(Path("a.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["x"], 1);
}

TEST_F(JsonFileTest, ErrorsNameTheFile) {
  ASSERT_TRUE(WriteFileAtomic(Path("a.json"), std::string(R"({"x": 1, "x": 2})")).ok());
  Result<Json> r = ParseJsonFile(Path("a.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(Path("a.json") + ": $.x: duplicate key"));
}

TEST_F(JsonFileTest, DevZeroIsRefusedQuickly) {
  const auto start = std::chrono::steady_clock::now();
  Result<Json> r = ParseJsonFile("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("/dev/zero: is a character device"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST_F(JsonFileTest, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  Result<Json> r = ParseJsonFile(Path("fifo"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("fifo: is a FIFO, not a regular file"));
}

TEST_F(JsonFileTest, DirectoryIsRefused) {
  Result<Json> r = ParseJsonFile(dir_.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is a directory"));
}

TEST_F(JsonFileTest, LargeFileIsRefusedWithoutReading) {
  JsonLimits limits;
  limits.max_bytes = 1000;
  ASSERT_TRUE(WriteFileAtomic(Path("big.json"), std::string(5000, ' ')).ok());
  Result<Json> r = ParseJsonFile(Path("big.json"), limits);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("5000 bytes, larger than the 1000-byte limit"));
}

TEST_F(JsonFileTest, MissingFileIsNotFound) {
  Result<Json> r = ParseJsonFile(Path("nope.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("nope.json"));
}

// Typed getters.

Json Doc() {
  return Json::parse(R"({"runs": 12, "neg": -1, "big": 18446744073709551615, "half": 0.5,
                         "s": "text", "b": true, "f": 3.0, "clocks": {"fabric_mhz": 0}})");
}

TEST(JsonGetterTest, U64InRange) {
  Result<uint64_t> v = GetU64(Doc(), "$", "runs", 1, 1000000000);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 12u);
  EXPECT_EQ(*GetU64(Doc(), "$", "big"), UINT64_MAX);
}

TEST(JsonGetterTest, U64ErrorsNameThePath) {
  EXPECT_EQ(GetU64(Doc(), "$", "neg", 1, 10).status().message(),
            "$.neg: -1 is out of range (expected 1..10)");
  EXPECT_EQ(GetU64(Doc(), "$", "runs", 1, 10).status().message(),
            "$.runs: 12 is out of range (expected 1..10)");
  EXPECT_EQ(GetU64(Doc(), "$", "s").status().message(),
            "$.s: wrong type: expected integer, got string");
  EXPECT_EQ(GetU64(Doc(), "$", "f").status().message(),
            "$.f: wrong type: expected integer, got number");
  EXPECT_EQ(GetU64(Doc(), "$", "nope").status().message(), "$.nope: missing required field");
  EXPECT_EQ(GetU64(Doc()["clocks"], "$.clocks", "fabric_mhz", 1, 1000).status().message(),
            "$.clocks.fabric_mhz: 0 is out of range (expected 1..1000)");
  EXPECT_EQ(GetU64(Doc()["s"], "$.s", "x").status().message(),
            "$.s: wrong type: expected object, got string");
}

TEST(JsonGetterTest, I64) {
  EXPECT_EQ(*GetI64(Doc(), "$", "neg", -5, 5), -1);
  EXPECT_EQ(GetI64(Doc(), "$", "big").status().message(),
            "$.big: 18446744073709551615 is out of range (expected "
            "-9223372036854775808..9223372036854775807)");
}

TEST(JsonGetterTest, DoubleFiniteAndInRange) {
  EXPECT_EQ(*GetDouble(Doc(), "$", "half", 0, 1), 0.5);
  EXPECT_EQ(*GetDouble(Doc(), "$", "runs", 0, 100), 12.0);
  EXPECT_EQ(GetDouble(Doc(), "$", "runs", 0, 1).status().message(),
            "$.runs: 12 is out of range (expected 0..1)");
  Json j;
  j["nan"] = std::nan("");
  j["inf"] = INFINITY;
  EXPECT_THAT(GetDouble(j, "$", "nan", -1e300, 1e300).status().message(),
              HasSubstr("$.nan: nan is out of range"));
  EXPECT_THAT(GetDouble(j, "$", "inf", -1e300, 1e300).status().message(),
              HasSubstr("$.inf: inf is out of range"));
  EXPECT_EQ(GetDouble(Doc(), "$", "b", 0, 1).status().message(),
            "$.b: wrong type: expected number, got boolean");
}

TEST(JsonGetterTest, StringAndBool) {
  EXPECT_EQ(*GetString(Doc(), "$", "s"), "text");
  EXPECT_EQ(GetString(Doc(), "$", "s", 2).status().message(),
            "$.s: string of 4 bytes, more than 2");
  EXPECT_EQ(GetString(Doc(), "$", "runs").status().message(),
            "$.runs: wrong type: expected string, got integer");
  EXPECT_TRUE(*GetBool(Doc(), "$", "b"));
  EXPECT_EQ(GetBool(Doc(), "$", "s").status().message(),
            "$.s: wrong type: expected boolean, got string");
}

TEST(JsonGetterTest, ElementGetters) {
  const Json a = Json::parse("[5, -5, 0.25]");
  EXPECT_EQ(*JsonU64(a[0], "$[0]", 0, 10), 5u);
  EXPECT_EQ(JsonU64(a[1], "$[1]").status().message(),
            "$[1]: -5 is out of range (expected 0..18446744073709551615)");
  EXPECT_EQ(*JsonI64(a[1], "$[1]"), -5);
  EXPECT_EQ(*JsonDouble(a[2], "$[2]", 0, 1), 0.25);
}

TEST(JsonPathTest, KeysAndIndexes) {
  EXPECT_EQ(JsonPathKey("$", "axes"), "$.axes");
  EXPECT_EQ(JsonPathKey("$.axes", "fabric_mhz"), "$.axes.fabric_mhz");
  EXPECT_EQ(JsonPathKey("$", "a b"), "$[\"a b\"]");
  EXPECT_EQ(JsonPathKey("$", ""), "$[\"\"]");
  EXPECT_EQ(JsonPathKey("$", "q\"\n"), "$[\"q\\\"\\n\"]");
  EXPECT_EQ(JsonPathIndex("$.axes.mode", 2), "$.axes.mode[2]");
}

TEST(PrintableTextTest, EscapesBytesAndCuts) {
  EXPECT_EQ(PrintableText("ok"), "ok");
  EXPECT_EQ(PrintableText(std::string("a\0\xff\n", 4)), "a\\x00\\xff\\x0a");
  EXPECT_EQ(PrintableText("h\xC3\xA9"), "h\xC3\xA9");
  EXPECT_EQ(PrintableText(std::string(100, 'x'), 10), std::string(10, 'x') + "...");
}

}  // namespace
}  // namespace ctte

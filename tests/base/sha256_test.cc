#include "base/sha256.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "base/files.h"

namespace ctte {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(std::string_view("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex(std::string_view("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, FileHashEqualsBufferHash) {
  const std::string path = ::testing::TempDir() + "sha_test.bin";
  ASSERT_TRUE(WriteFileAtomic(path, std::string("hello board")).ok());
  auto h = Sha256File(path);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, Sha256Hex(std::string_view("hello board")));
  std::remove(path.c_str());
}

TEST(Sha256Test, MissingFileIsNotFound) {
  auto h = Sha256File("/nonexistent/ctte/file");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), Status::Code::kNotFound);
}

TEST(Sha256Test, HmacKnownVector) {
  // RFC 4231 test case 2.
  const std::string data = "what do ya want for nothing?";
  EXPECT_EQ(HmacSha256Hex("Jefe", std::span<const uint8_t>(
                                      reinterpret_cast<const uint8_t*>(data.data()), data.size())),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

}  // namespace
}  // namespace ctte

// RetainFreedMemory (base/allocator.h): after it, a freed block of megabytes stays in the heap
// for the next allocation instead of going back to the kernel.
#include "base/allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ctte {
namespace {

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
// Bytes the heap holds free (allocated from the kernel, not in use).
size_t HeapFree() { return mallinfo2().fordblks; }

TEST(Allocator, FreedMegabytesStayInTheHeap) {
  constexpr size_t kBlock = size_t{16} << 20;  // above glibc's default mmap threshold
  ASSERT_TRUE(RetainFreedMemory());
  ASSERT_TRUE(RetainFreedMemory());  // idempotent
  const size_t before = HeapFree();
  void* p = std::malloc(kBlock);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, kBlock);  // touched, as a vector's pages are
  std::free(p);
  // Default policy: a 16 MiB block is mmapped and unmapped on free (or trimmed off the top of
  // the heap), so the free bytes would not grow by it.
  EXPECT_GE(HeapFree(), before + kBlock / 2);
}
#endif  // no heap policy to test without glibc's allocator

}  // namespace
}  // namespace ctte

// RetainFreedMemory (see allocator.h).
#include "base/allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ctte {

bool RetainFreedMemory() {
#if defined(__GLIBC__)
  // 32 MiB: glibc's largest mmap threshold on 64-bit (HEAP_MAX_SIZE / 2); a fixed threshold
  // also ends its dynamic adjustment.
  const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, static_cast<int>(kRetainBytes)) == 1;
  return mmap_ok && trim_ok;
#else
  return false;
#endif
}

}  // namespace ctte

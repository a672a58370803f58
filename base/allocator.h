// The heap policy of long-running processes (the soak, a board): keep freed memory for reuse.
//
// A soak run allocates and frees vectors of megabytes (the reference PCs, the decoded messages
// and PCs, the capture, the Verilator model). glibc's default policy gives such blocks back to
// the kernel (munmap, heap trim), so the next run faults every page in again, each fault a
// zeroed page: in a profile of the smoke soak (docs/bench.md) page faults and unmaps were
// several per cent of the host time outside the model. RetainFreedMemory() sets the mmap
// threshold to its maximum (32 MiB on 64-bit glibc: smaller blocks come from the heap) and the
// trim threshold to kRetainBytes, so the process keeps up to that much freed memory and its
// resident size stays near its peak. No effect on any result; a no-op without glibc.
#pragma once

#include <cstddef>

namespace ctte {

inline constexpr size_t kRetainBytes = size_t{512} << 20;

/// Once per process, before the work (idempotent). True when the allocator took the settings.
bool RetainFreedMemory();

}  // namespace ctte

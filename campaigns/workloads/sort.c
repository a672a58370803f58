// sort: quicksort of 1000 pseudo-random words with the comparator called through a function
// pointer (~500k insns).
#include "common.h"

#define kCount 1000

static uint64_t data[kCount];

typedef int (*Compare)(uint64_t, uint64_t);

CTTE_NOINLINE static int less_than(uint64_t a, uint64_t b) { return a < b ? -1 : (a > b); }

static void quicksort(uint64_t* v, int lo, int hi, Compare cmp) {
  while (lo < hi) {
    uint64_t pivot = v[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (cmp(v[i], pivot) < 0) ++i;
      while (cmp(v[j], pivot) > 0) --j;
      if (i <= j) {
        uint64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
        ++i;
        --j;
      }
    }
    if (j - lo < hi - i) {
      quicksort(v, lo, j, cmp);
      lo = i;
    } else {
      quicksort(v, i, hi, cmp);
      hi = j;
    }
  }
}

int main(void) {
  uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < kCount; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    data[i] = x;
  }
  Compare cmp = less_than;
  __asm__ volatile("" : "+r"(cmp));  // keep the call indirect
  quicksort(data, 0, kCount - 1, cmp);
  uint64_t acc = 0;
  for (int i = 0; i < kCount; ++i) {
    if (i > 0 && data[i - 1] > data[i]) return 1;  // not sorted
    acc = acc * 31 + data[i];
  }
  ctte_print_checksum("sort", acc);
  return 0;
}

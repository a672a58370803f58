// ptrchase: a shuffled linked list whose nodes carry one of four handlers, called through a
// function pointer chosen by the data (~300k insns).
#include "common.h"

#define kNodes 1024

struct Node {
  struct Node* next;
  uint64_t (*fn)(uint64_t);
  uint64_t value;
};

static struct Node nodes[kNodes];
static uint32_t order[kNodes];

CTTE_NOINLINE static uint64_t h0(uint64_t v) { return v + 1; }
CTTE_NOINLINE static uint64_t h1(uint64_t v) { return v ^ (v << 5); }
CTTE_NOINLINE static uint64_t h2(uint64_t v) { return v * 3; }
CTTE_NOINLINE static uint64_t h3(uint64_t v) { return (v >> 1) | (v << 63); }

static uint64_t (*const kHandlers[4])(uint64_t) = {h0, h1, h2, h3};

int main(void) {
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  for (uint32_t i = 0; i < kNodes; ++i) order[i] = i;
  for (uint32_t i = kNodes - 1; i > 0; --i) {  // Fisher-Yates with an LCG
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t j = (uint32_t)((seed >> 33) % (i + 1));
    uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (uint32_t i = 0; i < kNodes; ++i) {
    struct Node* n = &nodes[order[i]];
    n->next = &nodes[order[(i + 1) % kNodes]];
    n->value = order[i] * 2654435761u;
    n->fn = kHandlers[n->value >> 7 & 3];
  }
  uint64_t acc = 1;
  struct Node* p = &nodes[order[0]];
  for (uint32_t step = 0; step < 12000; ++step) {
    acc = p->fn(acc + p->value);
    p = p->next;
  }
  ctte_print_checksum("ptrchase", acc);
  return 0;
}

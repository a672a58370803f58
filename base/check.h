// CTTE_CHECK: a broken invariant of our own code fails loudly with context (house style 14).
// Not for bad input (that is a Status) and not for DUT mismatches (those are verdicts).
#pragma once

#include <cstdio>
#include <cstdlib>

#define CTTE_CHECK(cond, msg)                                                              \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: CTTE_CHECK(%s) failed: %s\n", __FILE__, __LINE__, #cond, \
                   (msg));                                                                 \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

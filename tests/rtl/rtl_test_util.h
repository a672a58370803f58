// Shared helpers of the rtl tests: beats, expected byte streams from oracle::Message values
// (packed by the independent oracle::MessageWriter), and parsing RTL bytes back to messages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/ntrace_message.h"
#include "oracle/ntrace_reader.h"
#include "oracle/ntrace_writer.h"
#include "oracle/reconstruct.h"
#include "tests/rtl/image_harness.h"

namespace ctte::rtl_test {

inline ctte_ingress MakeBeat(uint8_t itype, uint64_t iaddr, uint8_t iretire) {
  ctte_ingress b{};
  b.valid = 1;
  b.itype = itype;
  b.iaddr = iaddr;
  b.iretire = iretire;
  b.ilastsize = iretire == 2 ? 1 : 0;
  b.priv = 3;
  return b;
}

inline std::vector<uint8_t> Pack(const std::vector<oracle::Message>& msgs) {
  std::vector<uint8_t> out;
  oracle::MessageWriter writer;
  for (const oracle::Message& m : msgs) writer.Append(m, &out);
  return out;
}

inline std::vector<oracle::Message> Parse(const std::vector<uint8_t>& bytes,
                                          uint64_t* corruptions) {
  oracle::MessageReader reader(bytes, nullptr);
  std::vector<oracle::Message> out;
  oracle::Message m;
  while (reader.Next(&m)) out.push_back(m);
  *corruptions = reader.corruptions();
  return out;
}

inline std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string s;
  char buf[4];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x ", b);
    s += buf;
  }
  return s;
}

/// "" when equal; else the first differing message of the two streams, both sides named.
inline std::string FirstMessageDifference(const std::vector<uint8_t>& rtl,
                                          const std::vector<uint8_t>& reference) {
  if (rtl == reference) return "";
  uint64_t c1 = 0;
  uint64_t c2 = 0;
  const std::vector<oracle::Message> a = Parse(rtl, &c1);
  const std::vector<oracle::Message> b = Parse(reference, &c2);
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i].ToString() != b[i].ToString()) {
      return "message " + std::to_string(i) + ": RTL " + a[i].ToString() + ", reference " +
             b[i].ToString() + (i > 0 ? " (after " + b[i - 1].ToString() + ")" : "");
    }
  }
  return "RTL " + std::to_string(a.size()) + " messages (" + std::to_string(rtl.size()) +
         " bytes), reference " + std::to_string(b.size()) + " messages (" +
         std::to_string(reference.size()) + " bytes)" +
         (n < a.size() ? ", RTL extra: " + a[n].ToString() : "") +
         (n < b.size() ? ", reference extra: " + b[n].ToString() : "");
}

inline std::unique_ptr<ImageHarness> LoadImage(const std::string& name,
                                               const ImageHarness::Options& options = {}) {
  std::string error;
  std::unique_ptr<ImageHarness> h = ImageHarness::Load(ImagePath(name), options, &error);
  EXPECT_NE(h, nullptr) << error;
  return h;
}

// Greedy in-order matching of each anchored segment against the reference PCs.
inline std::string CheckSegmentsAreContiguousRuns(const std::vector<uint64_t>& ref,
                                           const std::vector<uint64_t>& pcs,
                                           const std::vector<oracle::Marker>& markers) {
  std::vector<size_t> starts;
  for (const oracle::Marker& m : markers) {
    if (m.kind == oracle::Marker::Kind::kAnchor) starts.push_back(m.pc_index);
  }
  starts.push_back(pcs.size());
  size_t cursor = 0;
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    const size_t b = starts[s];
    const size_t e = starts[s + 1];
    if (b == e) continue;
    bool found = false;
    for (size_t i = cursor; i + (e - b) <= ref.size() && !found; ++i) {
      if (std::equal(pcs.begin() + static_cast<long>(b), pcs.begin() + static_cast<long>(e),
                     ref.begin() + static_cast<long>(i))) {
        cursor = i + (e - b);
        found = true;
      }
    }
    if (!found) return "segment " + std::to_string(s) + " (PCs " + std::to_string(b) + ".." +
                       std::to_string(e) + ") is not a run of the reference after " +
                       std::to_string(cursor);
  }
  return "";
}

}  // namespace ctte::rtl_test

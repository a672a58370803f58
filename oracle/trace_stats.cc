// Stream statistics (see trace_stats.h for the definitions).
#include "oracle/trace_stats.h"

#include "oracle/ntrace_reader.h"

namespace ctte::oracle {

uint64_t TraceStats::total_messages() const {
  uint64_t n = 0;
  for (uint64_t m : messages_) n += m;
  return n;
}

double TraceStats::MessagesPerKiloInstruction() const {
  return instructions_ == 0 ? 0.0 : 1000.0 * static_cast<double>(total_messages()) /
                                        static_cast<double>(instructions_);
}

double PayloadBitsPerInstruction(uint64_t wire_bytes, uint64_t idle_bytes,
                                 uint64_t instructions) {
  return instructions == 0 ? 0.0 : 6.0 * static_cast<double>(wire_bytes - idle_bytes) /
                                       static_cast<double>(instructions);
}

double WireBitsPerInstruction(uint64_t wire_bytes, uint64_t instructions) {
  return instructions == 0
             ? 0.0
             : 8.0 * static_cast<double>(wire_bytes) / static_cast<double>(instructions);
}

double TraceStats::PayloadBitsPerInstruction() const {
  return oracle::PayloadBitsPerInstruction(wire_bytes_, idle_bytes_, instructions_);
}

double TraceStats::WireBitsPerInstruction() const {
  return oracle::WireBitsPerInstruction(wire_bytes_, instructions_);
}

namespace {

class CountingReporter : public MessageReader::Reporter {
 public:
  explicit CountingReporter(TraceStats* stats) : stats_(stats) {}
  void Corruption(uint64_t, uint64_t, const std::string&) override {}
  void Skipped(const Message& msg, const std::string&) override { stats_->AddMessage(msg); }

 private:
  TraceStats* stats_;
};

}  // namespace

TraceStats ComputeTraceStats(std::span<const uint8_t> bytes, uint64_t instructions,
                             const StreamFormat& format) {
  TraceStats stats;
  CountingReporter rep(&stats);
  MessageReader::Options opt;
  opt.format = format;
  MessageReader reader(bytes, &rep, opt);
  Message m;
  while (reader.Next(&m)) stats.AddMessage(m);
  stats.set_wire_bytes(bytes.size());
  stats.set_idle_bytes(reader.idle_bytes());
  stats.set_instructions(instructions);
  return stats;
}

}  // namespace ctte::oracle

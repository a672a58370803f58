#include "runner/counter_rules.h"

namespace ctte::runner {
namespace {

using K = CounterCheck;

// docs/verdicts.md, "Every counter has a rule", is this table; counter_rules_test keeps them one.
constexpr CounterRule kRules[] = {
    // The counter registers, read after every run.
    {"counters.messages", K::kExact, "counter_consistency", "message_count",
     "ctteMsgCount = messages framed in the capture (end-of-message bytes)"},
    {"counters.bytes", K::kExact, "counter_consistency", "byte_count",
     "ctteByteCount = bytes captured = bytes the sink received"},
    {"counters.overflow_episodes", K::kExact, "counter_consistency",
     "overflow_count, phantom_loss, unannounced_episode",
     "ctteOverflowEpisodes = Error messages in the capture (loss_accounting: no phantom loss, no "
     "episode without announcement)"},
    {"counters.records_dropped", K::kExact, "counter_consistency",
     "dropped_exact, dropped_bound, dropped_count",
     "ctteRecordsDropped = the records the dropped beat of each episode forms, the reference "
     "encoder replayed from the episode's anchor; an episode the replay cannot place counts 1 to 3"},
    {"counters.halfwords_retired", K::kExact, "counter_consistency",
     "halfword_count, halfword_sum",
     "ctteHalfwordsRetired = half-words the reference retired inside the windows (a late re-open "
     "whose SYNC=5 was dropped: between what was reconstructed there and the window's length)"},
    {"counters.status", K::kExact, "flush_completeness", "status_after_stop",
     "ctteStatus after a drained stop = Empty only (Lost, WindowOpen, CloseWaiting 0)"},
    {"counters.control", K::kExact, "counter_consistency",
     "overflow_flag, control_readback, status_after_stop",
     "trTeControl after the run: InstStallOrOverflow = (ctteOverflowEpisodes > 0); InstMode, "
     "InstSyncMode (and InstSyncMax when on) = the judged configuration; after a drained stop "
     "Empty = trTeEmpty = 1 and Enable 0 (flush_completeness)"},
    // The other facts of a capture.
    {"capture.bytes_received", K::kExact, "counter_consistency", "byte_count",
     "= bytes captured = ctteByteCount"},
    {"capture.ring_wrapped", K::kExact, "invalid", "",
     "a wrapped ring makes the run invalid (the capture is not the whole stream); "
     "counter_consistency is n/a"},
    {"capture.te_empty", K::kExact, "flush_completeness", "te_empty_zero, no_drain",
     "trTeEmpty reads 1 after a stop (liveness: within the drain budget)"},
    {"capture.drained", K::kExact, "liveness", "no_drain",
     "trTeEmpty reached 1 within the drain budget after a stop"},
    {"capture.drain_sink_cycles", K::kBound, "liveness", "no_drain",
     "at most the plan's drain budget (else not drained)"},
    {"capture.fabric_cycles", K::kRecorded, "none", "",
     "simulated duration (run metrics): set by the seeded stall and sink patterns and the "
     "clock ratio, which no reference models"},
    {"capture.sink_cycles", K::kRecorded, "none", "", "as fabric_cycles"},
    {"capture.sim_time_ps", K::kRecorded, "none", "", "as fabric_cycles"},
    {"capture.wall_seconds", K::kRecorded, "none", "",
     "host time, informational; never affects a result"},
    {"capture.beats", K::kExact, "liveness", "core_incomplete",
     "= the reference core's beats (retiring and trap beats)"},
    {"capture.retired", K::kExact, "liveness", "core_incomplete",
     "= the reference core's retired instructions"},
    {"capture.core_stop", K::kExact, "liveness", "core_incomplete",
     "= how the reference core stopped (a fatal stop with the same text)"},
    {"capture.exit_code", K::kRecorded, "none", "",
     "the workload's own result, not the encoder's; the core stopping as the reference did is "
     "core_stop's rule"},
    {"capture.console", K::kRecorded, "none", "", "what the workload printed; not the encoder's"},
    {"capture.fabric_hz", K::kBound, "liveness", "output_stall",
     "the clocks the run used: the ready-stall bound 64 + 16 * ceil(sink_hz / fabric_hz); the "
     "programmed clocks are read back at set-up (outside 1000 ppm: invalid)"},
    {"capture.sink_hz", K::kBound, "liveness", "output_stall", "as fabric_hz"},
    {"capture.max_ready_stall_sink_cycles", K::kBound, "liveness",
     "output_stall, stall_unmeasured",
     "at most 64 + 16 * ceil(sink_hz / fabric_hz); not reported is a failure"},
    // Every register of the map.
    {"reg.trTeControl", K::kExact, "counter_consistency",
     "overflow_flag, control_readback, status_after_stop", "read after the run: counters.control"},
    {"reg.trTeImpl", K::kTest, "none", "",
     "constants (version, component type, protocol, vendor): RegmapTest (ctte_rtl_test)"},
    {"reg.trTeInstFeatures", K::kIdentity, "infra", "manifest_mismatch",
     "read back after the write at deploy: the features the manifest claims (feature_table.h)"},
    {"reg.trTeInstFilters", K::kTest, "none", "", "reads 0 (no filters): RegmapTest (ctte_rtl_test)"},
    {"reg.trTeDataControl", K::kTest, "none", "",
     "reads 0 (no data trace): RegmapTest (ctte_rtl_test)"},
    {"reg.ctteBuildIdLo", K::kIdentity, "infra", "deploy",
     "the build id read back at deploy = the manifest's"},
    {"reg.ctteBuildIdHi", K::kIdentity, "infra", "deploy", "as ctteBuildIdLo"},
    {"reg.ctteProfile", K::kIdentity, "infra", "manifest_mismatch",
     "XLEN = the manifest's; Id, LogQDepth, LogFifoDepth are recorded in the manifest only"},
    {"reg.ctteCaps", K::kIdentity, "infra", "manifest_mismatch", "= the manifest's caps"},
    {"reg.ctteMsgCount", K::kExact, "counter_consistency", "message_count",
     "counters.messages"},
    {"reg.ctteByteCount", K::kExact, "counter_consistency", "byte_count", "counters.bytes"},
    {"reg.ctteOverflowEpisodes", K::kExact, "counter_consistency", "overflow_count",
     "counters.overflow_episodes"},
    {"reg.ctteRecordsDropped", K::kExact, "counter_consistency",
     "dropped_exact, dropped_bound, dropped_count", "counters.records_dropped"},
    {"reg.ctteHalfwordsRetired", K::kExact, "counter_consistency",
     "halfword_count, halfword_sum", "counters.halfwords_retired"},
    {"reg.ctteStatus", K::kExact, "flush_completeness", "status_after_stop", "counters.status"},
    {"reg.ctteMutant", K::kTest, "none", "",
     "= the manifest's mutant id: MutantTest (ctte_mutant_test) for the mutant images, 0 on a "
     "clean one: RegmapTest (ctte_rtl_test)"},
    {"reg.ctteFeatureCaps", K::kIdentity, "infra", "manifest_mismatch",
     "= the manifest's feature capabilities and return-stack depth (feature_table.h)"},
};

}  // namespace

const char* CounterCheckName(CounterCheck c) {
  switch (c) {
    case K::kExact: return "exact";
    case K::kBound: return "bound";
    case K::kIdentity: return "identity";
    case K::kTest: return "test";
    case K::kRecorded: return "recorded";
  }
  return "?";
}

std::span<const CounterRule> CounterRules() { return kRules; }

const CounterRule* FindCounterRule(std::string_view key) {
  for (const CounterRule& r : kRules) {
    if (key == r.key) return &r;
  }
  return nullptr;
}

}  // namespace ctte::runner

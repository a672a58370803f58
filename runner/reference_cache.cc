// ReferenceCache (see reference_cache.h): key texts, the computations a miss runs, the LRU.
#include "runner/reference_cache.h"

#include <algorithm>
#include <utility>

#include "base/sha256.h"
#include "oracle/iss.h"
#include "oracle/reference_trace.h"

namespace ctte::runner {
namespace {

// A field added to one of these structs must be added to ReferenceKeyText too (else two
// requests that differ in it would share an entry): these sizes fail the build first.
// (x86-64 / LP64 sizes: 8-byte budget, vector, 8-byte period; 4 one-byte fields, features,
// xlen, the 4-byte compiled feature bits.)
static_assert(sizeof(oracle::IssOptions) == 16 + sizeof(std::vector<uint64_t>),
              "IssOptions changed: update IssFields (both key texts)");
static_assert(sizeof(oracle::FeatureSet) == 12, "FeatureSet changed: update ReferenceKeyText");
static_assert(sizeof(oracle::EncoderConfig) == 24, "EncoderConfig changed: update ReferenceKeyText");
static_assert(sizeof(oracle::RetirementEdge) == 16, "RetirementEdge changed: update the key");
static_assert(sizeof(oracle::ExpectedOptions) ==
                  sizeof(oracle::IssOptions) + sizeof(oracle::EncoderConfig) +
                      sizeof(std::vector<oracle::RetirementEdge>) + 8,
              "ExpectedOptions changed: update ReferenceKeyText");
static_assert(sizeof(ReferenceRequest) ==
                  sizeof(std::string) + sizeof(oracle::ExpectedOptions) +
                      sizeof(std::optional<uint64_t>),
              "ReferenceRequest changed: update ReferenceKeyText (and TraceKeyText if the ISS "
              "depends on it)");

void Field(std::string* out, const char* name, uint64_t v) {
  *out += name;
  *out += '=';
  *out += std::to_string(v);
  *out += ';';
}

// The IssOptions fields, in both key texts (the static_assert above guards their number).
void IssFields(std::string* t, const oracle::IssOptions& o) {
  Field(t, "max_instructions", o.max_instructions);
  *t += "interrupt_at=";
  for (uint64_t at : o.interrupt_at) *t += std::to_string(at) + ",";
  *t += ";";
  Field(t, "interrupt_every", o.interrupt_every);
}

// The beat index at which `retired` instructions have retired (ISS run up to there).
uint64_t BeatOfRetirement(const oracle::ProgramImage& image, const oracle::IssOptions& o,
                          uint64_t retired) {
  oracle::Iss iss(image, o);
  oracle::Retired r;
  uint64_t beat = 0, done = 0;
  while (done < retired && iss.Step(&r)) {
    ++beat;
    if (r.retires) ++done;
  }
  return beat;
}

}  // namespace

size_t Reference::bytes() const {
  const oracle::Expected& e = expected;
  return sizeof(Reference) + e.pcs.capacity() * sizeof(uint64_t) + e.halfwords.capacity() +
         e.windows.capacity() * sizeof(oracle::ExpectedWindow) + e.reference_stream.capacity() +
         e.core_stop.capacity() + edge_beats.capacity() * sizeof(uint64_t) +
         e.Beats().capacity() * sizeof(oracle::TraceBeat);
}

std::string ReferenceKeyText(const ReferenceRequest& q) {
  const oracle::ExpectedOptions& o = q.options;
  std::string t = "reference/1;program_sha256=" + q.program_sha256 + ";";
  IssFields(&t, o.iss);
  Field(&t, "mode", static_cast<uint64_t>(o.encoder.mode));
  Field(&t, "sync_mode", o.encoder.sync_mode);
  Field(&t, "sync_max", o.encoder.sync_max);
  Field(&t, "icnt_bits", o.encoder.icnt_bits);
  Field(&t, "implicit_return_depth", o.encoder.features.implicit_return_depth);
  Field(&t, "repeated_history", o.encoder.features.repeated_history ? 1 : 0);
  Field(&t, "repeat_branch", o.encoder.features.repeat_branch ? 1 : 0);
  Field(&t, "sequential_jump", o.encoder.features.sequential_jump ? 1 : 0);
  Field(&t, "full_address", o.encoder.features.full_address ? 1 : 0);
  Field(&t, "config_message", o.encoder.features.config_message ? 1 : 0);
  Field(&t, "xlen", o.encoder.xlen);
  Field(&t, "compiled_features", o.encoder.compiled_features);
  t += "edges=";
  for (const oracle::RetirementEdge& e : o.edges) {
    t += std::to_string(e.at) + (e.open ? "+," : "-,");
  }
  t += ";";
  Field(&t, "stop_at_end", o.stop_at_end ? 1 : 0);
  t += q.window_stop ? "window_stop=" + std::to_string(*q.window_stop) + ";" : "window_stop=;";
  return t;
}

std::string ReferenceKey(const ReferenceRequest& request) {
  return Sha256Hex(std::string_view(ReferenceKeyText(request)));
}

std::string TraceKeyText(const ReferenceRequest& q) {
  std::string t = "trace/1;program_sha256=" + q.program_sha256 + ";";
  IssFields(&t, q.options.iss);
  return t;
}

std::string TraceKey(const ReferenceRequest& request) {
  return Sha256Hex(std::string_view(TraceKeyText(request)));
}

Reference ComputeReference(const oracle::ProgramImage& program, const ReferenceRequest& request) {
  Reference r;
  oracle::ExpectedOptions eo = request.options;
  if (request.window_stop) {
    // A stop is trTeEnable=0 after `stop` retirements: the core ends there and the board's
    // stop-at-end flushes.
    const uint64_t beat = BeatOfRetirement(program, eo.iss, *request.window_stop);
    eo.iss.max_instructions = std::min(eo.iss.max_instructions, beat);
  }
  r.max_instructions = eo.iss.max_instructions;
  r.expected = oracle::BuildExpected(program, eo, &r.edge_beats);
  r.expected.image = nullptr;
  return r;
}

Reference ComputeReferenceFromTrace(const oracle::ReferenceTrace& trace,
                                    const ReferenceRequest& request) {
  Reference r;
  oracle::ExpectedOptions eo = request.options;
  if (request.window_stop) {
    const uint64_t beat = oracle::BeatOfRetirement(trace, *request.window_stop);
    eo.iss.max_instructions = std::min(eo.iss.max_instructions, beat);
  }
  r.max_instructions = eo.iss.max_instructions;
  r.expected = oracle::BuildExpectedFromTrace(trace, eo, &r.edge_beats);
  r.expected.image = nullptr;
  return r;
}

const ReferenceCache::Entry* ReferenceCache::Find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &*it->second;
}

void ReferenceCache::Insert(Entry entry) {
  if (entry.bytes > max_bytes_ || index_.count(entry.key) != 0) return;
  bytes_ += entry.bytes;
  lru_.push_front(std::move(entry));
  index_[lru_.front().key] = lru_.begin();
  while (bytes_ > max_bytes_ && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

std::shared_ptr<const Reference> ReferenceCache::Get(const oracle::ProgramImage& program,
                                                     const ReferenceRequest& request,
                                                     bool* hit, bool* trace_hit) {
  const std::string key = ReferenceKey(request);
  const std::string trace_key = TraceKey(request);
  std::shared_ptr<const oracle::ReferenceTrace> trace;
  bool record = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (const Entry* e = Find(key)) {
      ++hits_;
      if (hit != nullptr) *hit = true;
      return e->value;
    }
    ++misses_;
    if (const Entry* e = Find(trace_key)) {
      trace = e->trace;
      ++trace_hits_;
    } else if (seen_traces_.count(trace_key) != 0) {
      record = true;  // the second run of this ISS run: keep it for the next ones
      ++trace_records_;
    } else {
      if (seen_traces_.size() >= kMaxSeenTraceKeys) seen_traces_.clear();
      seen_traces_.insert(trace_key);
    }
  }
  if (hit != nullptr) *hit = false;
  if (trace_hit != nullptr) *trace_hit = trace != nullptr;
  // Computed outside the lock: another board's worker may compute the same key meanwhile; the
  // first to insert wins and both values are equal.
  std::shared_ptr<const Reference> value;
  if (trace != nullptr) {
    value = std::make_shared<const Reference>(ComputeReferenceFromTrace(*trace, request));
  } else if (record) {
    trace = std::make_shared<const oracle::ReferenceTrace>(
        oracle::RecordReferenceTrace(program, request.options.iss));
    {
      std::lock_guard<std::mutex> lk(mu_);
      Insert(Entry{trace_key, nullptr, trace, trace->bytes()});
    }
    value = std::make_shared<const Reference>(ComputeReferenceFromTrace(*trace, request));
  } else {
    value = std::make_shared<const Reference>(ComputeReference(program, request));
  }
  std::lock_guard<std::mutex> lk(mu_);
  Insert(Entry{key, value, nullptr, value->bytes()});
  return value;
}

uint64_t ReferenceCache::hits() const {
  std::lock_guard<std::mutex> lk(mu_);
  return hits_;
}

uint64_t ReferenceCache::misses() const {
  std::lock_guard<std::mutex> lk(mu_);
  return misses_;
}

uint64_t ReferenceCache::trace_hits() const {
  std::lock_guard<std::mutex> lk(mu_);
  return trace_hits_;
}

uint64_t ReferenceCache::trace_records() const {
  std::lock_guard<std::mutex> lk(mu_);
  return trace_records_;
}

size_t ReferenceCache::bytes() const {
  std::lock_guard<std::mutex> lk(mu_);
  return bytes_;
}

size_t ReferenceCache::entries() const {
  std::lock_guard<std::mutex> lk(mu_);
  return lru_.size();
}

ReferenceCache& ProcessReferenceCache() {
  static ReferenceCache* cache = new ReferenceCache();  // never destroyed: used until exit
  return *cache;
}

}  // namespace ctte::runner

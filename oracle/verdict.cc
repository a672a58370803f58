#include "oracle/verdict.h"

namespace ctte::oracle {

const std::vector<VerdictCode>& AllVerdictCodes() {
  static const std::vector<VerdictCode> kAll = {
      VerdictCode::kDecodeIntegrity,   VerdictCode::kLossAccounting,
      VerdictCode::kPostRecoveryLosslessness, VerdictCode::kCounterConsistency,
      VerdictCode::kLiveness,          VerdictCode::kDeterminism,
      VerdictCode::kWindowSemantics,   VerdictCode::kFlushCompleteness,
      VerdictCode::kRtlAssertion,
  };
  return kAll;
}

const char* VerdictCodeName(VerdictCode code) {
  switch (code) {
    case VerdictCode::kDecodeIntegrity: return "decode_integrity";
    case VerdictCode::kLossAccounting: return "loss_accounting";
    case VerdictCode::kPostRecoveryLosslessness: return "post_recovery_losslessness";
    case VerdictCode::kCounterConsistency: return "counter_consistency";
    case VerdictCode::kLiveness: return "liveness";
    case VerdictCode::kDeterminism: return "determinism";
    case VerdictCode::kWindowSemantics: return "window_semantics";
    case VerdictCode::kFlushCompleteness: return "flush_completeness";
    case VerdictCode::kRtlAssertion: return "rtl_assertion";
  }
  return "unknown";
}

std::optional<VerdictCode> ParseVerdictCode(std::string_view name) {
  for (VerdictCode c : AllVerdictCodes()) {
    if (name == VerdictCodeName(c)) return c;
  }
  return std::nullopt;
}

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kNotApplicable: return "n/a";
  }
  return "?";
}

std::string Verdict::ToString() const {
  std::string s = VerdictCodeName(code);
  s += ": ";
  s += OutcomeName(outcome);
  if (!evidence.message.empty()) {
    s += ": ";
    s += evidence.message;
  }
  return s;
}

}  // namespace ctte::oracle

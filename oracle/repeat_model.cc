// The repeat stage (docs/encoder-behaviour.md sections 11.3-11.5).
#include "oracle/repeat_model.h"

namespace ctte::oracle {

namespace {

bool IsHistFull(const Message& m) {
  return m.type() == Tcode::kResourceFull && m.get(Field::kRcode) == kRcodeHist;
}

bool IsBranch(const Message& m) {
  return m.type() == Tcode::kDirectBranch || m.type() == Tcode::kIndirectBranch;
}

// `m` repeats `prev`: the same record, and for an addressed one the same target (U-ADDR 0).
bool Repeats(const Message& m, const Message& prev) {
  if (m.tcode != prev.tcode || m.get(Field::kIcnt) != prev.get(Field::kIcnt)) return false;
  if (m.type() == Tcode::kDirectBranch) return true;
  return m.get(Field::kBtype) == prev.get(Field::kBtype) && m.get(Field::kUaddr) == 0 &&
         prev.get(Field::kUaddr) == 0;
}

Message RepeatBranch(uint64_t bcnt) {
  Message m;
  m.tcode = static_cast<uint8_t>(Tcode::kRepeatBranch);
  m.set(Field::kBcnt, bcnt);
  return m;
}

}  // namespace

void RepeatStage::FlushHist(std::vector<Message>* out) {
  if (hrep_ == 0) return;
  if (hrep_ == 1) {
    out->push_back(Message::ResourceFull(kRcodeHist, held_hist_));
  } else {
    Message m = Message::ResourceFull(kRcodeHistRepeat, held_hist_);
    m.set(Field::kHrepeat, hrep_);
    out->push_back(m);
  }
  hrep_ = 0;
}

void RepeatStage::FlushBranch(std::vector<Message>* out) {
  if (bcnt_ > 0) out->push_back(RepeatBranch(bcnt_));
  bcnt_ = 0;
}

void RepeatStage::Push(const Message& rec, std::vector<Message>* out) {
  if (rh_on_ && IsHistFull(rec)) {
    FlushBranch(out);
    have_prev_ = false;
    const uint64_t h = rec.get(Field::kRdata);
    if (hrep_ > 0 && (h != held_hist_ || hrep_ == kMaxRepeatCount)) FlushHist(out);
    held_hist_ = h;
    ++hrep_;
    return;
  }
  FlushHist(out);
  if (rb_on_ && IsBranch(rec)) {
    if (have_prev_ && Repeats(rec, prev_)) {
      if (bcnt_ == kMaxRepeatCount) FlushBranch(out);
      ++bcnt_;
      return;
    }
    FlushBranch(out);
    out->push_back(rec);
    prev_ = rec;
    have_prev_ = true;
    return;
  }
  FlushBranch(out);
  have_prev_ = false;
  out->push_back(rec);
}

}  // namespace ctte::oracle

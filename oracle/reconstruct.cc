// Program-flow reconstruction (spec/ntrace.md section 12; docs/encoder-behaviour.md section 10).
//
// What: from a sync message's F-ADDR, every message that carries an I-CNT is replayed by walking
// the program image one instruction at a time, emitting each PC. Conditional branches consume
// HIST bits (HTM: ResourceFull RCODE 1/2 bits first, then the message's own HIST, MSB first
// below the stop bit) or are not taken except the last instruction of a DirectBranch (BTM).
// Direct jumps follow their target; an uninferable jump may only end the I-CNT, where the
// message's U-ADDR/F-ADDR gives the next PC. ResourceFull RCODE 0 adds to the next I-CNT.
// How: decoded instructions are cached per 4 KiB page in a hash map of pages (a lookup is one
// compare while the walk stays in a page); runs of sequential instructions are emitted in one
// loop each (oracle/reconstruct_run.h); PCs go to a fixed buffer flushed in batches.
#include "oracle/reconstruct.h"

#include <bit>
#include <cstdio>
#include <unordered_map>

#include "oracle/insn.h"
#include "oracle/reconstruct_cache.h"
#include "oracle/ntrace_reader.h"

namespace ctte::oracle {

namespace {

using namespace reconstruct_detail;

std::string Hex(const char* fmt, uint64_t a, uint64_t b = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, fmt, static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

constexpr uint64_t kMaxRepeat = 1u << 18;  // B-CNT and HREPEAT are at most 18 bits

}  // namespace

const char* MarkerKindName(Marker::Kind kind) {
  switch (kind) {
    case Marker::Kind::kAnchor: return "anchor";
    case Marker::Kind::kLoss: return "loss";
    case Marker::Kind::kCorrelation: return "correlation";
    case Marker::Kind::kDecodeError: return "decode_error";
  }
  return "?";
}

Reconstructor::Reconstructor(const ProgramImage& image, ReconstructOptions options,
                             PcSink* sink)
    : image_(image),
      options_(options),
      sink_(sink),
      cache_(std::make_unique<InsnCache>(image, options.xlen == 32 ? Xlen::k32 : Xlen::k64)),
      mode_(options.mode) {
  hist_.reserve(64);
  ras_cap_ = options.implicit_return_depth < 32 ? options.implicit_return_depth : 32;
  if (!IsValidXlen(options_.xlen)) options_.xlen = 64;
  mask_ = AddressMask(options_.xlen);
}

bool Reconstructor::AddressFits(const Message& msg, Field f) {
  if (AddressFieldFits(msg.get(f), options_.xlen)) return true;
  Fail(msg, std::string(FieldName(f)) +
                Hex(" 0x%llx has more significant bits than XLEN %llu allows (bits 1..XLEN-1)",
                    msg.get(f), options_.xlen));
  return false;
}

Reconstructor::~Reconstructor() = default;

void Reconstructor::Flush() {
  if (nbuf_ > 0) sink_->OnPcs(buf_, nbuf_);
  pcs_total_ += nbuf_;
  nbuf_ = 0;
}

void Reconstructor::Finish() { Flush(); }

void Reconstructor::Mark(Marker m) {
  Flush();
  m.pc_index = pcs_total_;
  sink_->OnMarker(m);
}

void Reconstructor::Lose() {
  have_pos_ = false;
  carry_icnt_ = 0;
  hist_.clear();
  have_last_branch_ = false;
  const bool keep = options_.test_keep_return_stack_at_anchor != 0 &&
                    anchors_ + 1 == options_.test_keep_return_stack_at_anchor;
  if (!keep) ras_n_ = 0;
  stale_n_ = keep ? ras_n_ : 0;
  ForgetPrevious();
}

void Reconstructor::Fail(const Message& msg, const std::string& reason) {
  ++decode_errors_;
  Marker m;
  m.kind = Marker::Kind::kDecodeError;
  m.offset = msg.offset;
  m.pc = pc_;
  m.code = msg.tcode;
  m.reason = TcodeName(msg.tcode) + Hex(" at byte offset %llu: ", msg.offset) + reason;
  Mark(std::move(m));
  Lose();
}

void Reconstructor::OnCorruption(uint64_t offset, const std::string& reason) {
  ++decode_errors_;
  Marker m;
  m.kind = Marker::Kind::kDecodeError;
  m.offset = offset;
  m.reason = reason;
  Mark(std::move(m));
  Lose();
}

bool Reconstructor::HtmWalk(const Message& msg) {
  if (options_.mode == ReconstructOptions::Mode::kAuto) {
    const auto t = msg.type();
    if (msg.has(Field::kHist)) {
      mode_ = ReconstructOptions::Mode::kHtm;
    } else if (t == Tcode::kDirectBranch || t == Tcode::kIndirectBranch ||
               t == Tcode::kDirectBranchSync || t == Tcode::kIndirectBranchSync ||
               (t == Tcode::kProgTraceCorrelation && msg.get(Field::kCdf) == 0)) {
      mode_ = ReconstructOptions::Mode::kBtm;
    }
  }
  return mode_ == ReconstructOptions::Mode::kHtm || !hist_.empty();
}

bool Reconstructor::Walk(const Message& msg, End end) {
  const uint64_t icnt = msg.has(Field::kIcnt) ? msg.get(Field::kIcnt) : 0;
  const uint64_t limit = options_.max_walk_halfwords;
  if (icnt > limit || carry_icnt_ > limit - icnt) {
    Fail(msg, Hex("I-CNT %llu (plus %llu from ResourceFull) exceeds the walk limit", icnt,
                  carry_icnt_));
    return false;
  }
  const uint64_t total = icnt + carry_icnt_;
  carry_icnt_ = 0;
  const bool htm = HtmWalk(msg);
  if (msg.has(Field::kHist) && !AddHist(msg.get(Field::kHist), 1, msg)) return false;

  // HIST cursor: segment, repetition, bit.
  size_t seg = 0;
  uint32_t rep = 0;
  int bit = 0;
  const size_t nseg = hist_.size();

  uint64_t pc = pc_;
  uint64_t remaining = total;
  uint8_t last_kind = kSeq;
  const bool runs = options_.straight_line_runs;
  while (remaining > 0) {
    const Decoded& d = cache_->Get(pc);
    if (d.kind == kSeq && runs) {  // straight-line fast path (oracle/reconstruct_run.h)
      if (nbuf_ + SeqRun::kMaxRun >= kBuf) Flush();  // a run leaves room for one more PC
      const unsigned n = EmitSeqRun(cache_->Run(pc), &pc, &remaining, buf_ + nbuf_);
      if (n > 0) {
        nbuf_ += n;
        pc &= mask_;
        last_kind = kSeq;
        continue;
      }  // n == 0: the first instruction does not fit; the one-by-one walk reports it
    }
    if (d.kind >= kIllegal) {
      pc_ = pc;
      Fail(msg, Hex(d.kind == kUnmapped ? "I-CNT walks into unmapped memory at 0x%llx "
                                          "(%llu half-words left)"
                                        : "I-CNT walks over an illegal instruction at 0x%llx "
                                          "(%llu half-words left)",
                    pc, remaining));
      return false;
    }
    const uint64_t hw = d.size >> 1;
    if (hw > remaining) {
      pc_ = pc;
      Fail(msg, Hex("I-CNT ends inside the 4-byte instruction at 0x%llx", pc));
      return false;
    }
    remaining -= hw;
    buf_[nbuf_++] = pc;
    if (nbuf_ == kBuf) Flush();
    last_kind = d.kind;
    switch (d.kind) {
      case kSeq:
        pc = (pc + d.size) & mask_;
        break;
      case kJump:
        if (ras_cap_ > 0 && d.itype == static_cast<uint8_t>(IType::kDirectCall)) {
          RasPush((pc + d.size) & mask_);
        }
        pc = (pc + static_cast<uint64_t>(static_cast<int64_t>(d.offset))) & mask_;
        break;
      case kBranch: {
        bool taken;
        if (htm) {
          while (seg < nseg && rep >= hist_[seg].repeat) {
            ++seg;
            rep = 0;
          }
          if (seg == nseg) {
            pc_ = pc;
            Fail(msg, Hex("conditional branch at 0x%llx has no HIST bit left", pc));
            return false;
          }
          const HistSeg& s = hist_[seg];
          taken = (s.bits >> (s.n - 1 - bit)) & 1;
          if (++bit == s.n) {
            bit = 0;
            ++rep;
          }
        } else {
          taken = remaining == 0 && end == End::kDirectBranch;
        }
        pc = (pc + (taken ? static_cast<uint64_t>(static_cast<int64_t>(d.offset)) : d.size)) &
             mask_;
        break;
      }
      default: {  // kIndirect, kTrapRet
        uint64_t seq_target = 0;  // section 11.7
        const bool seq = remaining > 0 && d.kind == kIndirect && SequentialTarget(pc, &seq_target);
        bool popped = false;
        if (ras_cap_ > 0 && d.kind == kIndirect) {
          // The stack moves exactly as the encoder's: also when this ends the I-CNT (then the
          // message's address is the target, whatever was popped).
          const auto t = static_cast<IType>(d.itype);
          const uint64_t link = (pc + d.size) & mask_;
          if ((t == IType::kReturn || t == IType::kCoroutineSwap) && ras_n_ > 0) {
            const uint64_t target = ras_[--ras_n_];
            if (ras_n_ < stale_n_) {
              stale_n_ = ras_n_;
              ++stale_pops_;
            }
            popped = true;
            if (remaining > 0) pc = target;
          }
          if (t == IType::kIndirectCall || t == IType::kCoroutineSwap) RasPush(link);
          if (popped && remaining > 0 && !seq) break;
        }
        if (seq) {
          pc = seq_target & mask_;
          break;
        }
        if (remaining == 0) break;  // the message's address is its target
        pc_ = pc;
        Fail(msg, Hex("uninferable jump at 0x%llx inside the I-CNT (%llu half-words left)", pc,
                      remaining));
        return false;
      }
    }
  }
  pc_ = pc;
  if (end == End::kIndirect && (total == 0 || (last_kind != kIndirect && last_kind != kTrapRet))) {
    Fail(msg, Hex("I-CNT ends at 0x%llx, before an instruction that is not an uninferable jump "
                  "(I-CNT %llu)",
                  pc, total));
    return false;
  }
  if (end == End::kDirectBranch && (total == 0 || last_kind != kBranch)) {
    Fail(msg, Hex("DirectBranch I-CNT %llu does not end on a conditional branch (next 0x%llx)",
                  total, pc));
    return false;
  }
  if (htm) {
    uint64_t left = 0;
    for (size_t i = seg; i < nseg; ++i) {
      left += static_cast<uint64_t>(hist_[i].n) * hist_[i].repeat;
      if (i == seg) left -= static_cast<uint64_t>(hist_[i].n) * rep + bit;
    }
    if (left > 0) {
      Fail(msg, Hex("%llu HIST bit(s) left over after the I-CNT ends at 0x%llx", left, pc));
      return false;
    }
  }
  hist_.clear();
  return true;
}

void Reconstructor::OnMessage(const Message& msg) {
  switch (msg.type()) {
    case Tcode::kProgTraceSync:
    case Tcode::kDirectBranchSync:
    case Tcode::kIndirectBranchSync:
    case Tcode::kIndirectBranchHistSync: {
      if (have_pos_) {
        Walk(msg, End::kSync);
      } else {
        HtmWalk(msg);  // mode detection only
      }
      Lose();
      if (!AddressFits(msg, Field::kFaddr)) return;
      pc_ = msg.get(Field::kFaddr) << 1;
      ref_ = pc_;
      have_pos_ = true;
      ++anchors_;
      Marker m;
      m.kind = Marker::Kind::kAnchor;
      m.offset = msg.offset;
      m.pc = pc_;
      m.code = static_cast<uint8_t>(msg.get(Field::kSync));
      Mark(std::move(m));
      return;
    }
    case Tcode::kDirectBranch:
      if (!have_pos_) return;
      if (Walk(msg, End::kDirectBranch)) {
        last_branch_ = msg;
        have_last_branch_ = true;
      }
      return;
    case Tcode::kIndirectBranch:
    case Tcode::kIndirectBranchHist: {
      if (!have_pos_) return;
      const End end = msg.get(Field::kBtype) == kBtypeJump ? End::kIndirect : End::kTrap;
      if (!Walk(msg, end) || !AddressFits(msg, Field::kUaddr)) return;
      if (end == End::kTrap) ForgetPrevious();  // the trap beat came between (section 11.7)
      pc_ = (msg.get(Field::kUaddr) << 1) ^ (options_.full_address ? 0 : ref_);
      ref_ = pc_;
      last_branch_ = msg;
      last_branch_.set(Field::kFaddr, pc_);  // the target, for RepeatBranch
      have_last_branch_ = true;
      return;
    }
    case Tcode::kRepeatBranch: {
      if (!have_pos_) return;
      if (!options_.repeat_branch) {
        Fail(msg, "RepeatBranch, but the decoder's features lack repeat-branch");
        return;
      }
      const uint64_t n = msg.get(Field::kBcnt) - ShortRepeat();
      if (!have_last_branch_ || n > kMaxRepeat) {
        Fail(msg, have_last_branch_ ? Hex("B-CNT %llu exceeds 2^18", n)
                                    : std::string("RepeatBranch without a previous branch"));
        return;
      }
      Message again = last_branch_;
      again.offset = msg.offset;
      for (uint64_t i = 0; i < n && have_pos_; ++i) {
        if (again.type() == Tcode::kDirectBranch) {
          Walk(again, End::kDirectBranch);
        } else if (Walk(again, again.get(Field::kBtype) == kBtypeJump ? End::kIndirect
                                                                       : End::kTrap)) {
          if (again.get(Field::kBtype) != kBtypeJump) ForgetPrevious();  // section 11.7
          pc_ = again.get(Field::kFaddr);
          ref_ = pc_;
        }
      }
      return;
    }
    case Tcode::kResourceFull: {
      if (!have_pos_) return;
      const uint64_t rcode = msg.get(Field::kRcode);
      if (rcode == kRcodeIcnt) {
        if (msg.get(Field::kRdata) > options_.max_walk_halfwords - carry_icnt_) {
          Fail(msg, Hex("ResourceFull I-CNT sum exceeds the walk limit (%llu + %llu)",
                        carry_icnt_, msg.get(Field::kRdata)));
          return;
        }
        carry_icnt_ += msg.get(Field::kRdata);
      } else if (rcode == kRcodeHist) {
        HtmWalk(msg);
        mode_ = options_.mode == ReconstructOptions::Mode::kAuto ? ReconstructOptions::Mode::kHtm
                                                                 : mode_;
        AddHist(msg.get(Field::kRdata), 1, msg);
      } else if (rcode == kRcodeHistRepeat) {
        if (!options_.repeated_history) {
          Fail(msg, "RCODE 2, but the decoder's features lack repeated-history");
          return;
        }
        const uint64_t r = msg.get(Field::kHrepeat);
        if (r == 0 || r > kMaxRepeat) {
          Fail(msg, Hex("HREPEAT %llu outside 1..2^18", r));
          return;
        }
        HtmWalk(msg);
        if (options_.mode == ReconstructOptions::Mode::kAuto) {
          mode_ = ReconstructOptions::Mode::kHtm;
        }
        AddHist(msg.get(Field::kRdata), static_cast<uint32_t>(r - ShortRepeat()), msg);
      } else {
        Fail(msg, Hex("ResourceFull with unsupported RCODE %llu", rcode));
      }
      return;
    }
    case Tcode::kProgTraceCorrelation: {
      if (have_pos_) Walk(msg, End::kCorrelation);
      Marker m;
      m.kind = Marker::Kind::kCorrelation;
      m.offset = msg.offset;
      m.pc = pc_;
      m.code = static_cast<uint8_t>(msg.get(Field::kEvcode));
      Mark(std::move(m));
      Lose();
      return;
    }
    case Tcode::kError: {
      Marker m;
      m.kind = Marker::Kind::kLoss;
      m.offset = msg.offset;
      m.code = static_cast<uint8_t>(msg.get(Field::kEtype));
      m.value = msg.get(Field::kEcode);
      Mark(std::move(m));
      Lose();
      return;
    }
    case Tcode::kOwnership:
      return;
  }
}

namespace {

class ForwardingReporter : public MessageReader::Reporter {
 public:
  explicit ForwardingReporter(Reconstructor* r, uint64_t* skipped) : r_(r), skipped_(skipped) {}
  void Corruption(uint64_t offset, uint64_t bytes, const std::string& reason) override {
    (void)bytes;
    r_->OnCorruption(offset, reason);
  }
  void Skipped(const Message& msg, const std::string& reason) override {
    (void)msg;
    (void)reason;
    if (skipped_ != nullptr) ++*skipped_;
  }

 private:
  Reconstructor* r_;
  uint64_t* skipped_;
};

}  // namespace

void DecodeStream(std::span<const uint8_t> bytes, const ProgramImage& image,
                  const DecodeOptions& options, PcSink* sink, uint64_t* skipped) {
  Reconstructor rec(image, options.reconstruct, sink);
  ForwardingReporter rep(&rec, skipped);
  MessageReader::Options ro;
  ro.format = options.format;
  MessageReader reader(bytes, &rep, ro);
  Message msg;
  while (reader.Next(&msg)) rec.OnMessage(msg);
  rec.Finish();
}

}  // namespace ctte::oracle

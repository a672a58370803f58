// Message model and layout table (spec/ntrace.md section 3).
#include "oracle/ntrace_message.h"

#include <cstdio>

namespace ctte::oracle {

namespace {

constexpr FieldSlot V(Field f) { return FieldSlot{f, 0}; }
constexpr FieldSlot F(Field f, uint8_t bits) { return FieldSlot{f, bits}; }

}  // namespace

bool IsStandardTcode(uint8_t tcode) {
  switch (static_cast<Tcode>(tcode)) {
    case Tcode::kOwnership: case Tcode::kDirectBranch: case Tcode::kIndirectBranch:
    case Tcode::kError: case Tcode::kProgTraceSync: case Tcode::kDirectBranchSync:
    case Tcode::kIndirectBranchSync: case Tcode::kResourceFull:
    case Tcode::kIndirectBranchHist: case Tcode::kIndirectBranchHistSync:
    case Tcode::kRepeatBranch: case Tcode::kProgTraceCorrelation:
      return true;
  }
  return false;
}

std::string TcodeName(uint8_t tcode) {
  switch (static_cast<Tcode>(tcode)) {
    case Tcode::kOwnership: return "Ownership";
    case Tcode::kDirectBranch: return "DirectBranch";
    case Tcode::kIndirectBranch: return "IndirectBranch";
    case Tcode::kError: return "Error";
    case Tcode::kProgTraceSync: return "ProgTraceSync";
    case Tcode::kDirectBranchSync: return "DirectBranchSync";
    case Tcode::kIndirectBranchSync: return "IndirectBranchSync";
    case Tcode::kResourceFull: return "ResourceFull";
    case Tcode::kIndirectBranchHist: return "IndirectBranchHist";
    case Tcode::kIndirectBranchHistSync: return "IndirectBranchHistSync";
    case Tcode::kRepeatBranch: return "RepeatBranch";
    case Tcode::kProgTraceCorrelation: return "ProgTraceCorrelation";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s(%u)", IsVendorTcode(tcode) ? "Vendor" : "Reserved",
                static_cast<unsigned>(tcode));
  return buf;
}

const char* FieldName(Field f) {
  switch (f) {
    case Field::kSrc: return "SRC";
    case Field::kSync: return "SYNC";
    case Field::kBtype: return "B-TYPE";
    case Field::kEtype: return "ETYPE";
    case Field::kRcode: return "RCODE";
    case Field::kEvcode: return "EVCODE";
    case Field::kCdf: return "CDF";
    case Field::kProcess: return "PROCESS";
    case Field::kIcnt: return "I-CNT";
    case Field::kFaddr: return "F-ADDR";
    case Field::kUaddr: return "U-ADDR";
    case Field::kHist: return "HIST";
    case Field::kEcode: return "ECODE";
    case Field::kRdata: return "RDATA";
    case Field::kHrepeat: return "HREPEAT";
    case Field::kBcnt: return "B-CNT";
    case Field::kTstamp: return "TSTAMP";
    case Field::kCount: break;
  }
  return "?";
}

int MessageLayout(uint8_t tcode, const StreamFormat& format, uint64_t cdf, uint64_t rcode,
                  FieldSlot* slots) {
  if (!IsStandardTcode(tcode)) return 0;
  int n = 0;
  auto add = [&](FieldSlot s) { slots[n++] = s; };
  if (format.src_bits > 0) add(F(Field::kSrc, format.src_bits));
  switch (static_cast<Tcode>(tcode)) {
    case Tcode::kOwnership:
      add(V(Field::kProcess));
      break;
    case Tcode::kDirectBranch:
      add(V(Field::kIcnt));
      break;
    case Tcode::kIndirectBranch:
      add(F(Field::kBtype, 2)); add(V(Field::kIcnt)); add(V(Field::kUaddr));
      break;
    case Tcode::kError:
      add(F(Field::kEtype, 4)); add(V(Field::kEcode));
      break;
    case Tcode::kProgTraceSync:
    case Tcode::kDirectBranchSync:
      add(F(Field::kSync, 4)); add(V(Field::kIcnt)); add(V(Field::kFaddr));
      break;
    case Tcode::kIndirectBranchSync:
      add(F(Field::kSync, 4)); add(F(Field::kBtype, 2)); add(V(Field::kIcnt));
      add(V(Field::kFaddr));
      break;
    case Tcode::kResourceFull:
      add(F(Field::kRcode, 4)); add(V(Field::kRdata));
      if (rcode == kRcodeHistRepeat) add(V(Field::kHrepeat));
      break;
    case Tcode::kIndirectBranchHist:
      add(F(Field::kBtype, 2)); add(V(Field::kIcnt)); add(V(Field::kUaddr)); add(V(Field::kHist));
      break;
    case Tcode::kIndirectBranchHistSync:
      add(F(Field::kSync, 4)); add(F(Field::kBtype, 2)); add(V(Field::kIcnt));
      add(V(Field::kFaddr)); add(V(Field::kHist));
      break;
    case Tcode::kRepeatBranch:
      add(V(Field::kBcnt));
      break;
    case Tcode::kProgTraceCorrelation:
      add(F(Field::kEvcode, 4)); add(F(Field::kCdf, 2)); add(V(Field::kIcnt));
      if (cdf == 1) add(V(Field::kHist));
      break;
  }
  if (format.timestamps) add(V(Field::kTstamp));
  return n;
}

std::string Message::ToString() const {
  std::string out = TcodeName(tcode);
  for (int f = 0; f < static_cast<int>(Field::kCount); ++f) {
    if (!has(static_cast<Field>(f))) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, " %s=0x%llx", FieldName(static_cast<Field>(f)),
                  static_cast<unsigned long long>(value[f]));
    out += buf;
  }
  return out;
}

namespace {
Message Make(Tcode t) {
  Message m;
  m.tcode = static_cast<uint8_t>(t);
  return m;
}
}  // namespace

Message Message::DirectBranch(uint64_t icnt) {
  Message m = Make(Tcode::kDirectBranch);
  m.set(Field::kIcnt, icnt);
  return m;
}

Message Message::IndirectBranch(uint8_t btype, uint64_t icnt, uint64_t uaddr) {
  Message m = Make(Tcode::kIndirectBranch);
  m.set(Field::kBtype, btype);
  m.set(Field::kIcnt, icnt);
  m.set(Field::kUaddr, uaddr);
  return m;
}

Message Message::Error(uint8_t etype, uint64_t ecode) {
  Message m = Make(Tcode::kError);
  m.set(Field::kEtype, etype);
  m.set(Field::kEcode, ecode);
  return m;
}

Message Message::ProgTraceSync(uint8_t sync, uint64_t icnt, uint64_t faddr) {
  Message m = Make(Tcode::kProgTraceSync);
  m.set(Field::kSync, sync);
  m.set(Field::kIcnt, icnt);
  m.set(Field::kFaddr, faddr);
  return m;
}

Message Message::IndirectBranchSync(uint8_t sync, uint8_t btype, uint64_t icnt, uint64_t faddr) {
  Message m = Make(Tcode::kIndirectBranchSync);
  m.set(Field::kSync, sync);
  m.set(Field::kBtype, btype);
  m.set(Field::kIcnt, icnt);
  m.set(Field::kFaddr, faddr);
  return m;
}

Message Message::ResourceFull(uint8_t rcode, uint64_t rdata) {
  Message m = Make(Tcode::kResourceFull);
  m.set(Field::kRcode, rcode);
  m.set(Field::kRdata, rdata);
  return m;
}

Message Message::IndirectBranchHist(uint8_t btype, uint64_t icnt, uint64_t uaddr,
                                    uint64_t hist) {
  Message m = IndirectBranch(btype, icnt, uaddr);
  m.tcode = static_cast<uint8_t>(Tcode::kIndirectBranchHist);
  m.set(Field::kHist, hist);
  return m;
}

Message Message::IndirectBranchHistSync(uint8_t sync, uint8_t btype, uint64_t icnt,
                                        uint64_t faddr, uint64_t hist) {
  Message m = IndirectBranchSync(sync, btype, icnt, faddr);
  m.tcode = static_cast<uint8_t>(Tcode::kIndirectBranchHistSync);
  m.set(Field::kHist, hist);
  return m;
}

Message Message::ProgTraceCorrelation(uint8_t evcode, uint8_t cdf, uint64_t icnt,
                                      uint64_t hist) {
  Message m = Make(Tcode::kProgTraceCorrelation);
  m.set(Field::kEvcode, evcode);
  m.set(Field::kCdf, cdf);
  m.set(Field::kIcnt, icnt);
  if (cdf == 1) m.set(Field::kHist, hist);
  return m;
}

}  // namespace ctte::oracle

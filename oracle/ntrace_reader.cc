// MSEO framing and field unpacking (spec/ntrace.md sections 1-3).
//
// Framing first: a message is every byte up to and including the first one with MSEO 11; 0xFF
// where a message would start is idle. Then the fields of the TCODE's layout are unpacked with a
// cursor (byte, bit within the MDO): fixed fields bit by bit, each variable field from the
// leftover bits of the current MDO (or a new MDO) up to the byte whose MSEO is 01 or 11. Any
// mismatch between the MSEO marks and the layout is a corruption of that message.
#include "oracle/ntrace_reader.h"

#include <cstdio>

namespace ctte::oracle {

namespace {

constexpr uint8_t kIdle = 0xFF;
constexpr uint8_t kMseoNext = 0, kMseoEndField = 1, kMseoReserved = 2, kMseoEndMessage = 3;

std::string Fmt(const char* fmt, unsigned long long a, unsigned long long b = 0,
                unsigned long long c = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

}  // namespace

MessageReader::MessageReader(std::span<const uint8_t> bytes, Reporter* reporter,
                             Options options)
    : bytes_(bytes), reporter_(reporter), options_(options) {}

void MessageReader::FlushResyncSkip() {
  if (resync_bytes_ > 0 && reporter_ != nullptr) {
    reporter_->Corruption(resync_start_, resync_bytes_,
                          Fmt("%llu message(s) skipped at byte offset %llu while waiting for a "
                              "message with SYNC",
                              resync_messages_, resync_start_));
  }
  resync_bytes_ = 0;
  resync_messages_ = 0;
}

void MessageReader::ReportCorruption(uint64_t offset, uint64_t bytes, const std::string& reason) {
  FlushResyncSkip();
  ++corruptions_;
  dropped_bytes_ += bytes;
  if (reporter_ != nullptr) reporter_->Corruption(offset, bytes, reason);
  want_sync_ = true;
}

void MessageReader::ReportSkip(const Message& msg, const std::string& reason) {
  ++skipped_messages_;
  if (reporter_ != nullptr) reporter_->Skipped(msg, reason);
}

bool MessageReader::Next(Message* msg) {
  const uint64_t size = bytes_.size();
  while (pos_ < size) {
    if (bytes_[pos_] == kIdle) {
      ++idle_bytes_;
      ++pos_;
      continue;
    }
    // Framing: up to and including the first byte with MSEO 11.
    const uint64_t start = pos_;
    uint64_t end = start;
    std::string framing_error;
    while (true) {
      if (end >= size) {
        ReportCorruption(start, size - start,
                         Fmt("truncated message at byte offset %llu: %llu byte(s) and no "
                             "end-of-message (MSEO 11)",
                             start, size - start));
        pos_ = size;
        FlushResyncSkip();
        return false;
      }
      const uint8_t mseo = bytes_[end] & 3;
      if (mseo == kMseoReserved) {
        framing_error =
            Fmt("reserved MSEO 10 at byte offset %llu (message at %llu)", end, start);
        break;
      }
      ++end;
      if (mseo == kMseoEndMessage) break;
      if (end - start >= options_.max_message_bytes) {
        framing_error = Fmt("message at byte offset %llu is longer than %llu bytes", start,
                            options_.max_message_bytes);
        break;
      }
    }
    if (!framing_error.empty()) {
      // Drop through the end of the broken message (the next byte with MSEO 11).
      while (end < size && (bytes_[end] & 3) != kMseoEndMessage) ++end;
      if (end < size) ++end;
      pos_ = end;
      ReportCorruption(start, end - start, framing_error);
      continue;
    }
    pos_ = end;
    msg->offset = start;
    msg->size = static_cast<uint32_t>(end - start);
    msg->tcode = bytes_[start] >> 2;
    if (!IsStandardTcode(msg->tcode)) {
      msg->present = 0;
      if (want_sync_) {
        if (resync_bytes_ == 0) resync_start_ = start;
        resync_bytes_ += end - start;
        ++resync_messages_;
      } else {
        ReportSkip(*msg, TcodeName(msg->tcode) +
                             Fmt(" message at byte offset %llu skipped", start));
      }
      continue;
    }
    std::string why;
    if (ParseFields(start, end, msg, &why) != Parse::kOk) {
      ReportCorruption(start, end - start, why);
      continue;
    }
    if (want_sync_) {
      if (!msg->is_sync()) {
        if (resync_bytes_ == 0) resync_start_ = start;
        resync_bytes_ += end - start;
        ++resync_messages_;
        continue;
      }
      FlushResyncSkip();
      want_sync_ = false;
    }
    return true;
  }
  FlushResyncSkip();
  return false;
}

MessageReader::Parse MessageReader::ParseFields(uint64_t start, uint64_t end, Message* msg,
                                                std::string* why) const {
  msg->present = 0;
  FieldSlot slots[kMaxSlots];
  // The conditional fields (HIST of a correlation, HREPEAT) depend on fixed fields that come
  // before every variable field, so the layout of those two TCODEs is fetched again once they
  // are known (the other layouts do not depend on them: fetched once).
  int n = MessageLayout(msg->tcode, options_.format, 0, 0, slots);
  const Tcode type = static_cast<Tcode>(msg->tcode);
  uint64_t i = start;  // current byte
  int pos = 6;         // bits of its MDO already consumed (TCODE took all 6 of byte 0)
  // The name is for error messages only: built when one is written, not per message.
  const auto name = [msg] { return TcodeName(msg->tcode); };
  bool layout_final = type != Tcode::kProgTraceCorrelation && type != Tcode::kResourceFull;
  for (int s = 0; s < n; ++s) {
    const FieldSlot slot = slots[s];
    if (slot.bits > 0) {
      uint64_t v = 0;
      for (int got = 0; got < slot.bits;) {
        if (pos == 6) {
          if ((bytes_[i] & 3) != kMseoNext) {
            *why = Fmt("field end inside fixed field at byte offset %llu (message at %llu)", i,
                       start) + " (" + name() + " " + FieldName(slot.field) + ")";
            return Parse::kBad;
          }
          ++i;
          pos = 0;
        }
        const int take = slot.bits - got < 6 - pos ? slot.bits - got : 6 - pos;
        const uint64_t mdo = bytes_[i] >> 2;
        v |= ((mdo >> pos) & ((1u << take) - 1)) << got;
        pos += take;
        got += take;
      }
      msg->set(slot.field, v);
      continue;
    }
    if (!layout_final) {
      n = MessageLayout(msg->tcode, options_.format, msg->get(Field::kCdf),
                        msg->get(Field::kRcode), slots);
      layout_final = true;
    }
    // Variable field.
    if (pos == 6) {
      if ((bytes_[i] & 3) != kMseoNext) {
        *why = Fmt("empty variable field at byte offset %llu (message at %llu)", i, start) +
               " (" + name() + " " + FieldName(slot.field) + ")";
        return Parse::kBad;
      }
      ++i;
      pos = 0;
    }
    uint64_t v = 0;
    int got = 0;
    bool overlong = false;
    uint8_t mseo;
    while (true) {
      const uint64_t chunk = (bytes_[i] >> 2) >> pos;
      if (got < 64) {
        v |= chunk << got;
        if (got + (6 - pos) > 64 && (chunk >> (64 - got)) != 0) overlong = true;
      } else if (chunk != 0) {
        overlong = true;
      }
      got += 6 - pos;
      pos = 0;
      mseo = bytes_[i] & 3;
      ++i;
      if (mseo != kMseoNext) break;
    }
    if (overlong) {
      *why = Fmt("variable field longer than 64 bits ending at byte offset %llu (message at "
                 "%llu)",
                 i - 1, start) + " (" + name() + " " + FieldName(slot.field) + ")";
      return Parse::kBad;
    }
    msg->set(slot.field, v);
    const bool last = s == n - 1;
    if (mseo == kMseoEndMessage && !last) {
      *why = Fmt("message at byte offset %llu ends before its field %llu", start, s + 1) + " (" +
             name() + " " + FieldName(slots[s + 1].field) + ")";
      return Parse::kBad;
    }
    if (mseo == kMseoEndField && last) {
      *why = Fmt("message at byte offset %llu has more fields than its TCODE %llu defines", start,
                 msg->tcode) + " (" + name() + ")";
      return Parse::kBad;
    }
  }
  (void)end;
  return Parse::kOk;
}

}  // namespace ctte::oracle

// MDO/MSEO packing (docs/encoder-behaviour.md section 8).
//
// A 6-bit accumulator `cur` with `pos` bits used stands for the MDO being filled. Fixed fields
// fill it bit by bit and spill into new MDOs (MSEO 00). A variable field takes the leftover
// `6 - pos` bits (a full MDO is flushed first), then whole MDOs while significant bits remain;
// its last MDO gets MSEO 01, or 11 if it ends the message. The next field starts a new MDO.
#include "oracle/ntrace_writer.h"

#include "base/check.h"

namespace ctte::oracle {

namespace {

constexpr uint8_t kMseoNext = 0, kMseoEndField = 1, kMseoEndMessage = 3;

class Packer {
 public:
  explicit Packer(std::vector<uint8_t>* out) : out_(out) {}

  void Fixed(uint64_t value, int bits) {
    while (bits > 0) {
      if (pos_ == 6) Flush(kMseoNext);
      const int take = bits < 6 - pos_ ? bits : 6 - pos_;
      cur_ |= static_cast<uint8_t>((value & ((1u << take) - 1)) << pos_);
      value >>= take;
      bits -= take;
      pos_ += take;
    }
  }

  void Variable(uint64_t value, bool last) {
    if (pos_ == 6) Flush(kMseoNext);
    const int room = 6 - pos_;
    cur_ |= static_cast<uint8_t>((value & ((1u << room) - 1)) << pos_);
    value >>= room;
    while (value != 0) {
      Flush(kMseoNext);
      cur_ = static_cast<uint8_t>(value & 0x3F);
      value >>= 6;
    }
    Flush(last ? kMseoEndMessage : kMseoEndField);
  }

 private:
  void Flush(uint8_t mseo) {
    out_->push_back(static_cast<uint8_t>((cur_ << 2) | mseo));
    cur_ = 0;
    pos_ = 0;
  }

  std::vector<uint8_t>* out_;
  uint8_t cur_ = 0;
  int pos_ = 0;
};

}  // namespace

size_t MessageWriter::Append(const Message& msg, std::vector<uint8_t>* out) const {
  FieldSlot slots[kMaxSlots];
  const int n = MessageLayout(msg.tcode, format_, msg.get(Field::kCdf), msg.get(Field::kRcode),
                              slots);
  CTTE_CHECK(n > 0, "MessageWriter: no standard layout for this TCODE");
  CTTE_CHECK(slots[n - 1].bits == 0, "MessageWriter: a message must end with a variable field");
  const size_t before = out->size();
  Packer p(out);
  p.Fixed(msg.tcode, 6);
  for (int i = 0; i < n; ++i) {
    CTTE_CHECK(msg.has(slots[i].field), FieldName(slots[i].field));
    const uint64_t v = msg.get(slots[i].field);
    if (slots[i].bits > 0) {
      CTTE_CHECK(slots[i].bits >= 64 || (v >> slots[i].bits) == 0,
                 "MessageWriter: fixed field value does not fit its width");
      p.Fixed(v, slots[i].bits);
    } else {
      p.Variable(v, i == n - 1);
    }
  }
  return out->size() - before;
}

}  // namespace ctte::oracle

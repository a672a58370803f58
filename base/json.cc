// JSON input adapter (see json.h): pre-checks, then nlohmann's SAX parser with a handler that
// builds the ordered_json tree and enforces what nlohmann does not. The typed getters (JsonU64,
// GetString, ...) are json_fields.cc.
//
// How: the input is first checked for size, a byte-order mark and UTF-8 validity (one pass).
// Then json::sax_parse reads it through a counting iterator, so the handler knows how many bytes
// the lexer has consumed when an event arrives; that locates duplicate keys and overflowing
// integers, which nlohmann reports without a position. The handler keeps one frame per open
// array or object (its node, its element count or current key, and a hash set of its keys, so
// duplicate detection is O(1) and a million-key object is not quadratic). The current JSON path
// is built from the frames only when an error is reported.
#include "base/json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <new>
#include <unordered_set>
#include <vector>

#include "base/files.h"

namespace ctte {
namespace {

using Json = nlohmann::ordered_json;

// A contiguous char iterator that records how far the lexer has read.
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* base, const char* p, size_t* consumed)
      : base_(base), p_(p), consumed_(consumed) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    if (consumed_) *consumed_ = static_cast<size_t>(p_ - base_);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

 private:
  const char* base_ = nullptr;
  const char* p_ = nullptr;
  size_t* consumed_ = nullptr;
};

bool IsPlainKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// " at byte N (line L, column C)" for a 0-based byte offset.
std::string Where(std::string_view text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return " at byte " + std::to_string(offset) + " (line " + std::to_string(line) + ", column " +
         std::to_string(offset - line_start + 1) + ")";
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if there is none (overlong forms,
// surrogates and code points above U+10FFFF are invalid, RFC 3629).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

// The offset of the token `token` that ends at `end` or one byte before it (the lexer reads one
// byte past a number before it knows the number ended).
size_t LocateToken(std::string_view text, size_t end, std::string_view token) {
  for (size_t back : {size_t{1}, size_t{0}}) {
    if (end >= back + token.size()) {
      const size_t start = end - back - token.size();
      if (text.substr(start, token.size()) == token) return start;
    }
  }
  return end >= token.size() ? end - token.size() : 0;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix (we print our own position).
std::string NlohmannReason(const std::string& what) {
  std::string_view w = what;
  if (const size_t column = w.find(", column "); column != std::string_view::npos) {
    if (const size_t colon = w.find(": ", column); colon != std::string_view::npos) {
      return PrintableText(w.substr(colon + 2), 200);
    }
  }
  if (const size_t bracket = w.find("] "); bracket != std::string_view::npos) {
    return PrintableText(w.substr(bracket + 2), 200);
  }
  return PrintableText(w, 200);
}

class TreeBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  TreeBuilder(std::string_view text, const size_t* consumed, const JsonLimits& limits)
      : text_(text), consumed_(consumed), limits_(limits) {}

  bool null() { return Place(Json(nullptr)); }
  bool boolean(bool v) { return Place(Json(v)); }
  bool number_integer(number_integer_t v) { return Place(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return Place(Json(v)); }
  bool number_float(number_float_t v, const string_t& raw) {
    // nlohmann reads an integer literal that fits neither int64 nor uint64 as a double.
    if (raw.find_first_of(".eE") == string_t::npos) {
      return Fail(CurrentPath(), "integer " + PrintableText(raw) + " does not fit in 64 bits",
                  LocateToken(text_, *consumed_, raw));
    }
    if (!std::isfinite(v)) {
      return Fail(CurrentPath(), "number " + PrintableText(raw) + " is out of range",
                  LocateToken(text_, *consumed_, raw));
    }
    return Place(Json(v));
  }
  bool string(string_t& v) { return Place(Json(std::move(v))); }
  bool binary(binary_t& /*v*/) { return Fail(CurrentPath(), "binary value", *consumed_); }

  bool start_object(size_t /*elements*/) { return Open(Json::object()); }
  bool start_array(size_t /*elements*/) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(string_t& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      return Fail(JsonPathKey(Path(frames_.size() - 1), k),
                  "duplicate key \"" + PrintableText(k) + "\"", KeyStart());
    }
    auto& members = static_cast<Json::object_t::Container&>(f.node->get_ref<Json::object_t&>());
    members.emplace_back(k, nullptr);
    f.member = &members.back().second;
    f.key = std::move(k);
    f.have_key = true;
    return true;
  }

  bool parse_error(size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    if (ex.id == 406) {  // out_of_range: a number outside the double range
      return Fail(CurrentPath(), "number " + PrintableText(last_token) + " is out of range",
                  LocateToken(text_, position, last_token));
    }
    return Fail(CurrentPath(), "invalid JSON: " + NlohmannReason(ex.what()),
                position > 0 ? position - 1 : 0);
  }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  Json& root() { return root_; }

 private:
  struct Frame {
    Json* node = nullptr;
    size_t count = 0;            // completed elements (arrays) or members (objects)
    std::string key;             // the current member's key (objects)
    bool have_key = false;
    Json* member = nullptr;      // where the current member's value goes (objects)
    std::unordered_set<std::string> keys;
  };

  bool CountValue() {
    if (++values_ > limits_.max_values) {
      return Fail(CurrentPath(),
                  "more than " + std::to_string(limits_.max_values) + " values (the limit)",
                  *consumed_);
    }
    return true;
  }

  // Stores v where the next value goes and returns a pointer to it.
  Json* Slot(Json&& v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.node->is_array()) {
      auto& a = f.node->get_ref<Json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    *f.member = std::move(v);
    return f.member;
  }

  void Completed() {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    ++f.count;
    f.have_key = false;
  }

  bool Place(Json&& v) {
    if (!CountValue()) return false;
    Slot(std::move(v));
    Completed();
    return true;
  }

  bool Open(Json&& container) {
    if (!CountValue()) return false;
    if (frames_.size() + 1 > limits_.max_depth) {
      return Fail(CurrentPath(),
                  "nested deeper than " + std::to_string(limits_.max_depth) + " levels (the limit)",
                  *consumed_ > 0 ? *consumed_ - 1 : 0);
    }
    Json* node = Slot(std::move(container));
    frames_.emplace_back();
    frames_.back().node = node;
    return true;
  }

  bool Close() {
    frames_.pop_back();
    Completed();
    return true;
  }

  // Path of the container frames_[depth] (frame 0 is the root container, "$").
  std::string Path(size_t depth) const {
    std::string p = "$";
    for (size_t i = 0; i < depth; ++i) p = MemberPath(p, frames_[i]);
    return p;
  }
  static std::string MemberPath(const std::string& p, const Frame& f) {
    if (f.node->is_array()) return JsonPathIndex(p, f.count);
    return f.have_key ? JsonPathKey(p, f.key) : p;
  }
  // Path of the value being parsed now.
  std::string CurrentPath() const {
    if (frames_.empty()) return "$";
    return MemberPath(Path(frames_.size() - 1), frames_.back());
  }

  // The offset of the opening quote of the key whose closing quote the lexer just read.
  size_t KeyStart() const {
    size_t i = *consumed_;
    if (i == 0) return 0;
    --i;  // the closing quote
    while (i > 0) {
      --i;
      if (text_[i] != '"') continue;
      size_t slashes = 0;
      while (slashes < i && text_[i - 1 - slashes] == '\\') ++slashes;
      if (slashes % 2 == 0) return i;
    }
    return 0;
  }

  bool Fail(const std::string& path, const std::string& reason, size_t offset) {
    if (error_.empty()) error_ = path + ": " + reason + Where(text_, offset);
    return false;
  }

  std::string_view text_;
  const size_t* consumed_;
  const JsonLimits& limits_;
  Json root_;
  std::vector<Frame> frames_;
  size_t values_ = 0;
  std::string error_;
};

Status Bad(std::string_view source, const std::string& what) {
  return Status::InvalidArgument(std::string(source) + ": " + what);
}

}  // namespace

std::string PrintableText(std::string_view text, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (out.size() >= max_bytes) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const size_t n = c >= 0x80 ? Utf8SequenceLength(text, i) : 0;
    if (n > 0) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
    ++i;
  }
  return out;
}

std::string JsonPathKey(std::string_view path, std::string_view key) {
  std::string p(path);
  if (IsPlainKey(key)) {
    p += '.';
    p += key;
    return p;
  }
  // A quoted key, escaped as JSON so the path stays one unambiguous line.
  p += '[';
  p += Json(std::string(key)).dump(-1, ' ', false, Json::error_handler_t::replace);
  p += ']';
  return p;
}

std::string JsonPathIndex(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

Result<Json> ParseJsonText(std::string_view text, std::string_view source,
                           const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Bad(source, "$: input is " + std::to_string(text.size()) + " bytes, more than the " +
                           std::to_string(limits.max_bytes) + "-byte limit");
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return Bad(source, "$: starts with a UTF-8 byte-order mark; save it without" +
                           Where(text, 0));
  }
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      return Bad(source, "$: invalid UTF-8" + Where(text, i) + ": byte " +
                             PrintableText(text.substr(i, 1)));
    }
    i += n;
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Bad(source, "$: empty input: expected a JSON value");
  }
  size_t consumed = 0;
  TreeBuilder builder(text, &consumed, limits);
  CountingIterator first(text.data(), text.data(), &consumed);
  CountingIterator last(text.data(), text.data() + text.size(), nullptr);
  try {
    const bool ok = Json::sax_parse(first, last, &builder);
    if (!ok || builder.failed()) {
      return Bad(source, builder.failed() ? builder.error() : "$: invalid JSON");
    }
  } catch (const nlohmann::json::exception& e) {
    return Bad(source, "$: invalid JSON: " + NlohmannReason(e.what()));
  } catch (const std::bad_alloc&) {
    return Status::Internal(std::string(source) + ": out of memory while parsing JSON");
  }
  return std::move(builder.root());
}

Result<Json> ParseJsonFile(const std::string& path, const JsonLimits& limits) {
  ReadLimits read;
  read.max_bytes = limits.max_bytes;
  Result<std::string> text = ReadFileText(path, read);
  if (!text.ok()) return text.status();
  return ParseJsonText(*text, path, limits);
}

}  // namespace ctte

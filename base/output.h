// Output files: the one way CTTE Lab writes a file a user named (reports, streams, PC lists,
// ELFs, stored images). The rule, in docs/inputs-and-outputs.md:
//
//   - Only a regular file is ever replaced. A symbolic link, FIFO, device (/dev/full,
//     /dev/null), socket or directory at the path is refused with an error that names the path
//     and what is there; it is left untouched. (There is no "write through to a device" mode;
//     standard output is spelled "-", for OutputFileWriter only: see there.)
//   - A missing parent folder is an error ("parent folder X does not exist") unless
//     OutputOptions::create_parents says to create it.
//   - The data goes to a temporary file in the same folder, which is renamed over the target,
//     so a reader sees the old file or the new one, never half of one. The temporary file is
//     removed on every failure path (open, write, ENOSPC, close, rename).
//   - A replaced file keeps its permission bits; a new file gets 0666 minus the umask. The
//     owner of a replaced file is not preserved (the new file belongs to the writer).
//
// Errors carry the errno's meaning (base/files.h ErrnoStatus): EACCES is "permission denied"
// (IOError), never NotFound. Not defended: a path swapped for a symlink by another process
// between our last check and rename(2); a new file is created with RENAME_NOREPLACE, so that
// race cannot replace something that appeared in the meantime.
//
// Thread-safe: no shared state besides an atomic counter for temporary names.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/text.h"

namespace ctte {

struct OutputOptions {
  /// Create missing parent folders (like mkdir -p; folders get 0777 minus the umask).
  bool create_parents = false;
  /// Replace an existing regular file. When false an existing file is an error.
  bool replace_existing = true;
  /// fsync the file before the rename and its folder after it (survives a power cut; slower).
  bool sync = false;
};

/// Writes `size` bytes to `path` by the rule above.
Status WriteOutputFile(const std::string& path, const void* data, size_t size,
                       const OutputOptions& options = {});
inline Status WriteOutputFile(const std::string& path, std::string_view text,
                              const OutputOptions& options = {}) {
  return WriteOutputFile(path, text.data(), text.size(), options);
}
inline Status WriteOutputFile(const std::string& path, const std::vector<uint8_t>& bytes,
                              const OutputOptions& options = {}) {
  return WriteOutputFile(path, bytes.data(), bytes.size(), options);
}

/// The 8 lower-case hex digits of `v`, most significant first in memory (store the result with
/// memcpy): nibbles spread to bytes with three shift-and-mask steps, then '0'/'a' added to all
/// eight at once. Little-endian hosts only (every target of this project).
inline uint64_t HexDigits8(uint32_t v) {
  static_assert(std::endian::native == std::endian::little, "HexDigits8 assumes little endian");
  uint64_t x = v;
  x = ((x & 0xFFFF0000ULL) << 16) | (x & 0xFFFFULL);
  x = ((x & 0x0000FF000000FF00ULL) << 8) | (x & 0x000000FF000000FFULL);
  x = ((x & 0x00F000F000F000F0ULL) << 4) | (x & 0x000F000F000F000FULL);
  const uint64_t letter = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
  x += 0x3030303030303030ULL + letter * ('a' - '0' - 10);
  return __builtin_bswap64(x);
}

/// One PC line, HexShort(v) + "\n", written at `out` without a loop over the digits; returns its
/// length. It may store up to kHexLineRoom bytes at `out` (bytes past the line are scratch).
/// The bulk-text twin of HexShort (base/text.h), for PC lists.
constexpr size_t kHexLineRoom = 24;
inline size_t FormatHexLine(uint64_t v, char* out) {
  out[0] = '0';
  out[1] = 'x';
  if ((v >> 28) != 0 && (v >> 32) == 0) {  // 8 digits: most PCs (0x10000000..0xffffffff)
    const uint64_t d = HexDigits8(static_cast<uint32_t>(v));
    std::memcpy(out + 2, &d, 8);
    out[10] = '\n';
    return 11;
  }
  const int bits = v == 0 ? 1 : 64 - __builtin_clzll(v);
  const int n = (bits + 3) / 4;
  if (n <= 8) {
    const uint64_t d = HexDigits8(static_cast<uint32_t>(v)) >> (8 * (8 - n));
    std::memcpy(out + 2, &d, 8);
  } else {
    const uint64_t hi = HexDigits8(static_cast<uint32_t>(v >> 32)) >> (8 * (16 - n));
    const uint64_t lo = HexDigits8(static_cast<uint32_t>(v));
    std::memcpy(out + 2, &hi, 8);
    std::memcpy(out + 2 + (n - 8), &lo, 8);
  }
  out[2 + n] = '\n';
  return static_cast<size_t>(n) + 3;
}

/// For byte b: its two lower-case hex digits, a newline and a NUL, in memory order (the tail of
/// an 8-digit PC line; OutputFileWriter::AppendHexLines).
inline constexpr std::array<uint32_t, 256> kHexTail = [] {
  std::array<uint32_t, 256> t{};
  constexpr char kDigits[] = "0123456789abcdef";
  for (uint32_t b = 0; b < 256; ++b) {
    t[b] = static_cast<uint32_t>(static_cast<uint8_t>(kDigits[b >> 4])) |
           static_cast<uint32_t>(static_cast<uint8_t>(kDigits[b & 15])) << 8 | uint32_t{'\n'} << 16;
  }
  return t;
}();

/// A large output file written in chunks by the same rule as WriteOutputFile: Open() checks the
/// path and creates the temporary file beside it, Append*() fill a buffer that is written with
/// write(2) whenever kChunk bytes are pending, Commit() flushes, closes and renames over the
/// target. Destroyed without a successful Commit(), the temporary file is removed and the
/// target is untouched. A write error is kept and returned by Commit() (appends after it are
/// dropped), so per-line calls need no status check. Not thread-safe.
///
/// Standard output ("-", kStdoutName: OpenStdout, or Open("-")): the same 1 MiB chunks go to
/// fd 1 with write(2), whatever it is (pipe, terminal, /dev/null, a file the shell opened);
/// short writes and EINTR are resumed, EAGAIN (a non-blocking pipe) waits in poll(2). Nothing is
/// renamed and Commit() only flushes. OpenStdout sets SIGPIPE to SIG_IGN for the process, so a
/// reader that closes the pipe (`| head`) gives EPIPE instead of killing it: the writer then
/// drops every later append, reader_closed() turns true and Commit() returns Ok (a quiet stop:
/// the caller stops producing and exits without a message). Any other write error (EIO, ENOSPC,
/// EBADF) is kept and returned by Commit() as "standard output: write failed: REASON".
class OutputFileWriter {
 public:
  static constexpr size_t kChunk = 1 << 20;
  static constexpr std::string_view kStdoutName = "-";
  /// `path` == "-" opens standard output (OpenStdout); anything else is a file by the rule.
  static Result<std::unique_ptr<OutputFileWriter>> Open(const std::string& path,
                                                         const OutputOptions& options = {});
  /// Standard output; an error when fd 1 is not open ("standard output is closed").
  static Result<std::unique_ptr<OutputFileWriter>> OpenStdout();
  static bool IsStdout(std::string_view path) { return path == kStdoutName; }
  /// The reader of standard output closed it (EPIPE); appends are dropped from then on.
  bool reader_closed() const;
  ~OutputFileWriter();
  OutputFileWriter(const OutputFileWriter&) = delete;
  OutputFileWriter& operator=(const OutputFileWriter&) = delete;

  void Append(const void* data, size_t size);
  void Append(std::string_view text) { Append(text.data(), text.size()); }
  /// One line "0x<hex digits>\n" (base/text.h HexShort), formatted straight into the buffer.
  void AppendHexLine(uint64_t v) {
    if (pos_ + kHexLineRoom > kChunk) Flush();
    pos_ += FormatHexLine(v, buf_.get() + pos_);
  }
  /// AppendHexLine for each of `n` values (a PcSink batch), the same bytes. An 8-digit value
  /// whose digits but the last two equal the previous one's (consecutive PCs, mostly) reuses
  /// that line's first 8 bytes and takes the last two digits and the newline from a table.
  void AppendHexLines(const uint64_t* v, size_t n) {
    char* const buf = buf_.get();
    size_t pos = pos_;  // a local: the stores into buf may alias pos_, this one they cannot
    uint64_t key = ~uint64_t{0};  // v >> 8 of the line in `head`; never a real v >> 8
    uint64_t head = 0;            // "0x" and the first 6 of 8 digits, in memory order
    for (size_t i = 0; i < n; ++i) {
      if (pos + kHexLineRoom > kChunk) {
        pos_ = pos;
        Flush();
        pos = pos_;
      }
      const uint64_t x = v[i];
      if ((x >> 8) != key) {
        if ((x >> 28) == 0 || (x >> 32) != 0) {  // not 8 digits: the general formatter
          pos += FormatHexLine(x, buf + pos);
          continue;
        }
        key = x >> 8;
        head = 0x7830 | (HexDigits8(static_cast<uint32_t>(x)) << 16);  // "0x" + digits 1..6
      }
      std::memcpy(buf + pos, &head, 8);
      std::memcpy(buf + pos + 8, &kHexTail[x & 0xff], 4);  // digits 7, 8, newline, scratch
      pos += 11;
    }
    pos_ = pos;
  }
  [[nodiscard]] Status Commit();

 private:
  struct State;
  explicit OutputFileWriter(std::unique_ptr<State> state);
  void Flush();
  void WriteOut(const void* data, size_t size);

  std::unique_ptr<State> state_;
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0;
};

/// Whether WriteOutputFile(path, ..., options) would be refused for its path, checked without
/// writing anything: for --html/--csv/--out flags, before a long soak spends hours.
Status CheckOutputPath(const std::string& path, const OutputOptions& options = {});

/// `dir` exists, is a folder (a symlink to one is fine) and a file can be created in it
/// (probed by creating and removing an empty file, so read-only mounts and ACLs count).
Status CheckWritableDir(const std::string& dir);

}  // namespace ctte

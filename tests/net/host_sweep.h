// What the hostile-peer suites check outside the agent's folders (issue #27): nothing there
// read, written, created, removed or changed while the table runs.
//   Watches  inotify on chosen folders (non-recursive): every open, read, write, attribute
//            change, creation and removal of an entry, optionally only for some names (a
//            folder other processes also use, such as /etc, is watched for its secrets only).
//   Snapshot a stat of every entry under chosen trees (inode, size, mode, owner, mtime, ctime;
//            not atime), compared before and after: a write, a chmod, a creation or a removal
//            anywhere under them shows, whoever did it.
// The test process itself must not touch a watched name while a sweep is open.
#pragma once

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ctte::lab::net {

class HostWatch {
 public:
  HostWatch() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}
  ~HostWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  HostWatch(const HostWatch&) = delete;
  HostWatch& operator=(const HostWatch&) = delete;

  /// Watches `dir`'s entries; `only`: report these names only (empty: every name, and the
  /// folder itself). False when inotify refused (the reason in error()).
  bool Add(const std::string& dir, std::set<std::string> only = {}) {
    const int wd = ::inotify_add_watch(fd_, dir.c_str(),
                                       IN_OPEN | IN_ACCESS | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE |
                                           IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                           IN_DELETE_SELF | IN_MOVE_SELF);
    if (wd < 0) {
      error_ = dir + ": " + std::strerror(errno);
      return false;
    }
    dirs_[wd] = {dir, std::move(only)};
    return true;
  }
  const std::string& error() const { return error_; }

  /// The events since the last call, one "WHAT PATH" each.
  std::vector<std::string> Drain() {
    std::vector<std::string> out;
    alignas(inotify_event) char buf[64 * 1024];
    for (;;) {
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t i = 0; i < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + i);
        i += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
        if (e->mask & IN_IGNORED) continue;
        const auto it = dirs_.find(e->wd);
        if (it == dirs_.end()) continue;
        const std::string name = e->len > 0 ? std::string(e->name) : "";
        const auto& [dir, only] = it->second;
        if (!only.empty() && only.count(name) == 0) continue;
        out.push_back(What(e->mask) + " " + dir + (name.empty() ? "" : "/" + name));
      }
    }
    return out;
  }

 private:
  static std::string What(uint32_t m) {
    std::string w;
    for (const auto& [bit, name] : std::vector<std::pair<uint32_t, const char*>>{
             {IN_OPEN, "open"}, {IN_ACCESS, "read"}, {IN_MODIFY, "write"}, {IN_ATTRIB, "attrib"},
             {IN_CLOSE_WRITE, "close-write"}, {IN_CREATE, "create"}, {IN_DELETE, "delete"},
             {IN_MOVED_FROM, "moved-from"}, {IN_MOVED_TO, "moved-to"},
             {IN_DELETE_SELF, "delete-self"}, {IN_MOVE_SELF, "move-self"}}) {
      if (m & bit) w += (w.empty() ? "" : "|") + std::string(name);
    }
    return w;
  }
  int fd_;
  std::string error_;
  std::map<int, std::pair<std::string, std::set<std::string>>> dirs_;
};

/// path -> (inode, size, mode, uid, mtime ns, ctime ns) of every entry under the roots
/// (symbolic links not followed), skipping the `skip` trees (the agent's own folders).
using HostSnapshot =
    std::map<std::string, std::tuple<ino_t, off_t, mode_t, uid_t, int64_t, int64_t>>;

inline HostSnapshot TakeSnapshot(const std::vector<std::string>& roots,
                                 const std::vector<std::string>& skip = {}) {
  namespace fs = std::filesystem;
  HostSnapshot snap;
  auto add = [&snap](const std::string& p) {
    struct stat st{};
    if (::lstat(p.c_str(), &st) != 0) return;
    snap[p] = {st.st_ino, st.st_size, st.st_mode, st.st_uid,
               int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
               int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec};
  };
  auto skipped = [&skip](const std::string& p) {
    for (const std::string& s : skip) {
      if (p == s || p.rfind(s + "/", 0) == 0) return true;
    }
    return false;
  };
  for (const std::string& root : roots) {
    add(root);
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string p = it->path().string();
      if (skipped(p)) {
        it.disable_recursion_pending();
        continue;
      }
      add(p);
    }
  }
  return snap;
}

/// "created P", "removed P", "changed P" for every difference.
inline std::vector<std::string> SnapshotDiff(const HostSnapshot& before, const HostSnapshot& after) {
  std::vector<std::string> out;
  for (const auto& [p, v] : after) {
    const auto it = before.find(p);
    if (it == before.end()) {
      out.push_back("created " + p);
    } else if (it->second != v) {
      out.push_back("changed " + p);
    }
  }
  for (const auto& [p, v] : before) {
    if (after.count(p) == 0) out.push_back("removed " + p);
  }
  return out;
}

}  // namespace ctte::lab::net

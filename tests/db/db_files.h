// File helpers for the db tests that damage, copy and lock down database files, and run code as
// an unprivileged user so permission bits apply when the tests run as root.
#pragma once

#include <gtest/gtest.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "db/database.h"

namespace ctte::db::testing {

using OpenFn = Result<std::unique_ptr<Database>> (*)(const std::string&, const Database::Options&);
/// Database::OpenReadOnly and Database::Open, for cases both must handle alike.
inline std::vector<OpenFn> BothOpens() {
  return {static_cast<OpenFn>(&Database::OpenReadOnly), static_cast<OpenFn>(&Database::Open)};
}

/// A fresh empty folder under the system temp folder (world-traversable, unlike some test temp
/// dirs), unique per test; left writable again by ~ScratchDir.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag = "") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (std::filesystem::temp_directory_path() /
             ("ctte_db_" + std::string(info->test_suite_name()) + "_" + info->name() + tag + "_" +
              std::to_string(::getpid())))
                .string();
    Unlock();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
    std::filesystem::permissions(path_, std::filesystem::perms(0755));
  }
  ~ScratchDir() {
    Unlock();
    std::filesystem::remove_all(path_);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  /// chmod 0444 every file and 0555 the folder.
  void Lock() const {
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      std::filesystem::permissions(e.path(), std::filesystem::perms(0444));
    }
    std::filesystem::permissions(path_, std::filesystem::perms(0555));
  }
  void Unlock() const {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    std::filesystem::permissions(path_, std::filesystem::perms(0755), ec);
    for (const auto& e : std::filesystem::directory_iterator(path_, ec)) {
      std::filesystem::permissions(e.path(), std::filesystem::perms(0644), ec);
    }
  }

 private:
  std::string path_;
};

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteAt(const std::string& path, std::streamoff offset, const std::string& bytes) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  ASSERT_TRUE(f) << path;
  f.seekp(offset);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// How often `needle` occurs in `haystack`.
inline size_t CountOf(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = 0; (p = haystack.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
  return n;
}

/// Runs `fn` in a child process as uid/gid 65534 when the tests run as root (root ignores
/// permission bits), or directly otherwise; returns what `fn` returned. "SKIP: ..." when the
/// child cannot drop privileges.
inline std::string AsUnprivileged(const std::function<std::string()>& fn) {
  if (::geteuid() != 0) return fn();
  int fds[2];
  if (::pipe(fds) != 0) return "SKIP: pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) return "SKIP: fork failed";
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
        ::setresuid(65534, 65534, 65534) != 0) {
      out = "SKIP: cannot drop privileges";
    } else {
      out = fn();
    }
    (void)!::write(fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return "child crashed";
  return out;
}

}  // namespace ctte::db::testing

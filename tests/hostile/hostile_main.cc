// The hostile-input suite's runner (see hostile.h): builds the fixtures and the corpus, runs
// every case in its own folder and process group with a timeout, judges it, compares the
// result with known_failures.txt and prints one table per class.
//
//   hostile --lab BIN --board BIN --source DIR --images DIR --workloads DIR --known FILE
//           [--jobs N] [--timeout S] [--only SUBSTRING] [--keep] [--write-known FILE]
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/hostile/hostile.h"

extern char** environ;

namespace ctte::hostile {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr size_t kKeepBytes = 64 << 10;     // of each stream, for the message check
constexpr size_t kFloodBytes = 1 << 20;     // more output than this is a flood
constexpr rlim_t kMemoryBytes = rlim_t{3} << 30;  // address space per case

struct Options {
  Env env;
  std::string known_path, write_known, only;
  int jobs = 2;
  int timeout_s = 20;
  bool keep = false;
};

struct Outcome {
  bool pass = false;
  std::string why;      // the failure, or "exit N" for a pass
  std::string message;  // the first line of stderr (or stdout)
  double seconds = 0;
};

// One entry of a folder snapshot: type, mode, size and (for small files) content.
struct Entry {
  std::string type;
  unsigned mode = 0;
  uintmax_t size = 0;
  std::string content;
  bool operator==(const Entry& o) const {
    return type == o.type && mode == o.mode && size == o.size && content == o.content;
  }
};

std::map<std::string, Entry> Snapshot(const std::string& root) {
  std::map<std::string, Entry> out;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(root, ec))) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    struct stat st {};
    const std::string p = it->path().string();
    if (::lstat(p.c_str(), &st) != 0) continue;
    Entry e;
    e.mode = st.st_mode;
    e.size = static_cast<uintmax_t>(st.st_size);
    if (S_ISREG(st.st_mode)) {
      e.type = "file";
      if (st.st_size < (1 << 20)) e.content = ReadText(p);
    } else if (S_ISDIR(st.st_mode)) {
      e.type = "dir";
    } else if (S_ISLNK(st.st_mode)) {
      e.type = "symlink";
      e.content = fs::read_symlink(p, ec).string();
    } else {
      e.type = "other";
    }
    out[p.substr(root.size())] = e;
  }
  return out;
}

std::string DescribeChange(const std::map<std::string, Entry>& before,
                           const std::map<std::string, Entry>& after) {
  for (const auto& [p, e] : before) {
    auto it = after.find(p);
    if (it == after.end()) return "removed " + p;
    if (!(it->second == e)) return "changed " + p;
  }
  for (const auto& [p, e] : after) {
    if (!before.count(p)) return "created " + p;
  }
  return "";
}

bool HasJsonPath(const std::string& text) {
  for (size_t i = text.find('$'); i != std::string::npos; i = text.find('$', i + 1)) {
    if (i + 1 < text.size() && (text[i + 1] == '.' || text[i + 1] == '[' || text[i + 1] == ':')) {
      return true;
    }
  }
  return false;
}

std::string CheckPath(const std::string& dir, const PathCheck& c) {
  const std::string p = c.path.empty() || c.path[0] == '/' ? c.path : dir + "/" + c.path;
  struct stat st {};
  const bool exists = ::lstat(p.c_str(), &st) == 0;
  using K = PathCheck::Kind;
  switch (c.kind) {
    case K::kAbsent:
      return exists ? c.path + " was created" : "";
    case K::kFifo:
      return exists && S_ISFIFO(st.st_mode) ? "" : c.path + " is no longer a FIFO";
    case K::kSymlink:
      return exists && S_ISLNK(st.st_mode) ? "" : c.path + " is no longer a symlink";
    case K::kDirectory:
      return exists && S_ISDIR(st.st_mode) ? "" : c.path + " is no longer a directory";
    case K::kRegular:
      return exists && S_ISREG(st.st_mode) ? "" : c.path + " is not a regular file";
    case K::kCharDevice:
      return exists && S_ISCHR(st.st_mode) ? "" : c.path + " is no longer a character device";
  }
  return "";
}

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  for (char& ch : line) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
  }
  return line;
}

Outcome RunCase(const Case& c, const std::string& dir, const Options& o) {
  Outcome out;
  // Everything the child needs, prepared before fork() (the child only calls async-signal-safe
  // functions until execve).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("HOME=", 0) == 0 || s.rfind("TMPDIR=", 0) == 0) continue;
    env_strings.push_back(s);
  }
  env_strings.push_back("HOME=" + dir);
  env_strings.push_back("TMPDIR=" + dir);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = c.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string stdin_path = c.stdin_file.empty() ? "/dev/null" : dir + "/" + c.stdin_file;
  const bool drop = c.unprivileged && ::geteuid() == 0;

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    out.why = "harness: pipe failed";
    return out;
  }
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open(stdin_path.c_str(), O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (::chdir(dir.c_str()) != 0) ::_exit(125);
    struct rlimit mem {kMemoryBytes, kMemoryBytes};
    ::setrlimit(RLIMIT_AS, &mem);
    struct rlimit core {0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    if (drop && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(125);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  std::string streams[2], tails[2];
  size_t total = 0;
  int status = 0;
  bool exited = false, timed_out = false, flooded = false;
  const int timeout_s = c.timeout_s ? c.timeout_s : o.timeout_s;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  auto deadline = start + std::chrono::seconds(timeout_s);
  int open_fds = 2;
  while (open_fds > 0 || !exited) {
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      // Leftover children (a board) must not keep the pipes open; they are ours to end.
      ::kill(-pid, SIGKILL);
      deadline = std::min(deadline, Clock::now() + std::chrono::seconds(2));
    }
    if (Clock::now() > deadline) {
      if (!exited) timed_out = true;
      break;
    }
    if (open_fds == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    ::poll(fds, 2, 20);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[1 << 16];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      total += static_cast<size_t>(n);
      if (streams[i].size() < kKeepBytes) {
        streams[i].append(buf, std::min(static_cast<size_t>(n), kKeepBytes - streams[i].size()));
      } else {  // keep the tail too: summaries come last
        tails[i].append(buf, static_cast<size_t>(n));
        if (tails[i].size() > 2 * kKeepBytes) tails[i].erase(0, tails[i].size() - kKeepBytes);
      }
    }
    if (total > kFloodBytes) {
      flooded = true;
      break;
    }
  }
  ::kill(-pid, SIGKILL);
  if (!exited) ::waitpid(pid, &status, 0);
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::string& err = streams[1];
  const std::string text = streams[0] + "\n" + tails[0] + "\n" + streams[1] + "\n" + tails[1];
  out.message = FirstLine(err.find_first_not_of(" \n") != std::string::npos ? err : streams[0]);

  if (flooded) {
    out.why = "flood: more than " + std::to_string(kFloodBytes >> 20) + " MiB of output";
  } else if (timed_out) {
    out.why = "hang: killed after " + std::to_string(timeout_s) + " s";
  } else if (WIFSIGNALED(status)) {
    out.why = "crash: signal " + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    out.why = "harness: cannot execute " + c.argv[0];
  } else {
    const int code = WEXITSTATUS(status);
    if (std::find(c.exits.begin(), c.exits.end(), code) == c.exits.end()) {
      std::string allowed;
      for (int e : c.exits) allowed += (allowed.empty() ? "" : "/") + std::to_string(e);
      out.why = "exit " + std::to_string(code) + " (allowed " + allowed + ")";
    } else if ((code != 0 || c.locate_always) && !c.locators.empty()) {
      for (const auto& group : c.locators) {
        bool found = false;
        for (const std::string& l : group) {
          if (l == "$" ? HasJsonPath(text) : text.find(l) != std::string::npos) found = true;
        }
        if (!found) {
          std::string ls;
          for (const auto& l : group) ls += (ls.empty() ? "" : " | ") + l;
          out.why = "message names none of: " + ls;
          break;
        }
      }
    }
  }
  if (!out.why.empty()) return out;
  for (const PathCheck& pc : c.after) {
    if (std::string bad = CheckPath(dir, pc); !bad.empty()) {
      out.why = "clobbered: " + bad;
      return out;
    }
  }
  out.why = "exit " + std::to_string(WEXITSTATUS(status));
  out.pass = true;
  return out;
}

std::map<std::string, std::string> ReadKnown(const std::string& path) {
  std::map<std::string, std::string> known;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find_first_of(" \t");
    const std::string id = line.substr(0, sp);
    std::string why = sp == std::string::npos ? "" : line.substr(sp);
    why.erase(0, why.find_first_not_of(" \t"));
    known[id] = why;
  }
  return known;
}

int Usage() {
  std::fprintf(stderr,
               "usage: hostile --lab BIN --board BIN --source DIR --images DIR --workloads DIR "
               "--known FILE [--jobs N] [--timeout S] [--only SUBSTRING] [--keep] "
               "[--write-known FILE]\n");
  return 2;
}

}  // namespace

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--lab") o.env.lab = next();
    else if (a == "--board") o.env.board = next();
    else if (a == "--source") o.env.source_dir = next();
    else if (a == "--images") o.env.images = next();
    else if (a == "--workloads") o.env.workloads = next();
    else if (a == "--known") o.known_path = next();
    else if (a == "--write-known") o.write_known = next();
    else if (a == "--only") o.only = next();
    else if (a == "--jobs") o.jobs = std::max(1, std::atoi(next().c_str()));
    else if (a == "--timeout") o.timeout_s = std::max(1, std::atoi(next().c_str()));
    else if (a == "--keep") o.keep = true;
    else return Usage();
  }
  if (o.env.lab.empty() || o.env.board.empty() || o.env.source_dir.empty()) return Usage();
  if (const char* j = std::getenv("CTTE_HOSTILE_JOBS")) o.jobs = std::max(1, std::atoi(j));
  for (std::string* p : {&o.env.lab, &o.env.board, &o.env.source_dir, &o.env.images,
                         &o.env.workloads, &o.known_path}) {
    if (!p->empty()) *p = fs::absolute(*p).string();
  }

  std::string root_template = (fs::temp_directory_path() / "ctte-hostile-XXXXXX").string();
  if (!::mkdtemp(root_template.data())) {
    std::perror("mkdtemp");
    return 2;
  }
  const std::string root = root_template;
  ::chmod(root.c_str(), 0755);  // cases that run as nobody must reach their folders
  std::printf("hostile: working in %s\n", root.c_str());
  o.env.fixtures = root + "/fixtures";
  fs::create_directories(o.env.fixtures);
  o.env.have_sqlite3 = std::system("command -v sqlite3 >/dev/null 2>&1") == 0;
  if (std::string err = MakeFixtures(o.env); !err.empty()) {
    std::fprintf(stderr, "hostile: fixtures: %s\n", err.c_str());
    return 2;
  }
  const auto fixtures_before = Snapshot(o.env.fixtures);

  std::vector<Case> corpus = MakeCorpus(o.env);
  {
    std::set<std::string> ids;
    for (const Case& c : corpus) {
      if (!ids.insert(c.id).second) {
        std::fprintf(stderr, "hostile: duplicate case id %s\n", c.id.c_str());
        return 2;
      }
    }
  }
  if (!o.only.empty()) {
    std::erase_if(corpus, [&](const Case& c) { return c.id.find(o.only) == std::string::npos; });
  }
  const auto known = ReadKnown(o.known_path);

  std::vector<Outcome> outcomes(corpus.size());
  std::atomic<size_t> next{0};
  std::mutex print_mu;
  auto worker = [&] {
    for (size_t i; (i = next++) < corpus.size();) {
      const Case& c = corpus[i];
      const std::string dir = root + "/cases/" + c.id;
      const std::string outside = root + "/outside/" + c.id;
      fs::create_directories(dir);
      fs::create_directories(outside + "/victim_dir");
      ::chmod(dir.c_str(), 0755);
      WriteText(outside + "/victim.txt", "victim of " + c.id + "\n");
      WriteText(outside + "/victim_dir/keep.txt", "keep\n");
      std::string setup_error;
      try {
        if (c.setup) c.setup(dir, outside);
      } catch (const std::exception& e) {
        setup_error = e.what();
      }
      const auto before = Snapshot(outside);
      Outcome r;
      if (setup_error.empty()) {
        r = RunCase(c, dir, o);
        ::chmod(dir.c_str(), 0755);  // a read-only-folder case: removable again
      } else {
        r.why = "harness: setup failed: " + setup_error;
      }
      if (r.pass) {
        if (std::string change = DescribeChange(before, Snapshot(outside)); !change.empty()) {
          r.pass = false;
          r.why = "touched outside its folder: " + change;
        }
      }
      const bool listed = known.count(c.id) > 0;
      const char* tag = r.pass ? (listed ? "FIXED" : "pass ") : (listed ? "known" : "FAIL ");
      std::lock_guard<std::mutex> lock(print_mu);
      std::printf("%s %-44s %6.2fs %s | %s\n", tag, c.id.c_str(), r.seconds, r.why.c_str(),
                  r.message.c_str());
      std::fflush(stdout);
      outcomes[i] = std::move(r);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < o.jobs; ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  // Anything shared the cases could have clobbered.
  std::string global;
  if (std::string change = DescribeChange(fixtures_before, Snapshot(o.env.fixtures));
      !change.empty()) {
    global = "a case changed the shared fixtures: " + change;
  }

  struct Row {
    int cases = 0, passed = 0, known = 0, unexpected = 0, fixed = 0;
  };
  std::map<std::string, Row> rows;
  std::vector<std::string> unexpected, fixed;
  std::ofstream write_known;
  if (!o.write_known.empty()) write_known.open(o.write_known);
  for (size_t i = 0; i < corpus.size(); ++i) {
    const Case& c = corpus[i];
    const Outcome& r = outcomes[i];
    Row& row = rows[c.cls];
    ++row.cases;
    const bool listed = known.count(c.id) > 0;
    if (r.pass) {
      ++row.passed;
      if (listed) {
        ++row.fixed;
        fixed.push_back(c.id);
      }
    } else {
      if (listed) ++row.known;
      else {
        ++row.unexpected;
        unexpected.push_back(c.id + ": " + r.why + " | " + r.message);
      }
      if (write_known.is_open()) {
        std::string msg = r.message.substr(0, 90);
        write_known << c.id << "  " << r.why << (msg.empty() ? "" : ": " + msg) << "\n";
      }
    }
  }
  std::printf("\n%-10s %6s %7s %7s %11s %6s\n", "class", "cases", "passed", "known", "unexpected",
              "fixed");
  Row all;
  for (const auto& [cls, row] : rows) {
    std::printf("%-10s %6d %7d %7d %11d %6d\n", cls.c_str(), row.cases, row.passed, row.known,
                row.unexpected, row.fixed);
    all.cases += row.cases;
    all.passed += row.passed;
    all.known += row.known;
    all.unexpected += row.unexpected;
    all.fixed += row.fixed;
  }
  std::printf("%-10s %6d %7d %7d %11d %6d\n", "total", all.cases, all.passed, all.known,
              all.unexpected, all.fixed);
  for (const auto& u : unexpected) std::printf("UNEXPECTED FAILURE %s\n", u.c_str());
  for (const auto& f : fixed) {
    std::printf("FIXED %s: it passes now; remove it from %s\n", f.c_str(), o.known_path.c_str());
  }
  if (o.only.empty()) {
    for (const auto& [id, why] : known) {
      if (std::none_of(corpus.begin(), corpus.end(), [&](const Case& c) { return c.id == id; })) {
        std::printf("STALE %s: listed in %s but no such case\n", id.c_str(),
                    o.known_path.c_str());
        fixed.push_back(id);
      }
    }
  }
  if (!global.empty()) std::printf("FAIL %s\n", global.c_str());
  if (!o.keep) {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  return unexpected.empty() && fixed.empty() && global.empty() ? 0 : 1;
}

}  // namespace ctte::hostile

int main(int argc, char** argv) { return ctte::hostile::Main(argc, argv); }

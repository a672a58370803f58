// The hostile-input suite's runner (see hostile.h): builds the fixtures and the corpus, runs
// every case in its own folder and process group with a timeout, judges it, compares the
// result with known_failures.txt and prints one table per class.
//
//   hostile --lab BIN --board BIN --source DIR --images DIR --workloads DIR --known FILE
//           [--jobs N] [--timeout S] [--only SUBSTRING] [--keep] [--write-known FILE]
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/hostile/hostile.h"
#include "tests/hostile/run_case.h"
#include "tests/hostile/snapshot.h"

namespace ctte::hostile {
namespace {

namespace fs = std::filesystem;

struct Options {
  Env env;
  std::string known_path, write_known, only;
  int jobs = 2;
  int timeout_s = 20;
  bool keep = false;
};

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
        r = RunCase(c, dir, o.timeout_s);
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

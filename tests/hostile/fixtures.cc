// Shared fixtures of the hostile suite and the file helpers the corpus uses.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile.h"

namespace ctte::hostile {
namespace {

namespace fs = std::filesystem;

// Runs argv in `dir` and returns its exit code; stdout goes to *out, stderr to *err.
int Run(const std::vector<std::string>& args, const std::string& dir, std::string* out,
        std::string* err) {
  const std::string out_path = dir + "/.fixture.out", err_path = dir + "/.fixture.err";
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& s : copy) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(125);
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || in < 0) ::_exit(125);
    ::dup2(in, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (out) *out = ReadText(out_path);
  if (err) *err = ReadText(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void MakeFifo(const std::string& path) {
  if (::mkfifo(path.c_str(), 0644) != 0) throw std::runtime_error("mkfifo " + path);
}

void Symlink(const std::string& target, const std::string& link) {
  fs::create_symlink(target, link);
}

void CopyFile(const std::string& from, const std::string& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

std::string MakeFixtures(Env& env) {
  const std::string& fx = env.fixtures;
  WriteText(fx + "/tiny.json", std::string(kTinySpec) + "\n");
  std::string out, err;
  if (Run({env.lab, "campaign", "check", "tiny.json"}, fx, &out, &err) != 0) {
    return "campaign check tiny.json failed: " + err;
  }
  if (Run({env.lab, "campaign", "draw", "tiny.json", "--count", "1", "--json"}, fx, &out, &err) !=
      0) {
    return "campaign draw failed: " + err;
  }
  try {
    const nlohmann::ordered_json drawn = nlohmann::ordered_json::parse(out);
    WriteText(fx + "/config.json", drawn.at(0).dump() + "\n");
  } catch (const std::exception& e) {
    return std::string("campaign draw --json printed no RunConfig array: ") + e.what();
  }
  const std::string elf = env.workloads + "/loop.elf";
  if (Run({env.lab, "encode", elf, "--out", "loop.bin"}, fx, &out, &err) != 0) {
    return "encode failed: " + err;
  }
  if (Run({env.lab, "soak", "tiny.json", "--runs", "1", "--db", "run.db", "--report-dir",
           "reports", "--image-dir", env.images, "--workload-dir", env.workloads, "--board",
           env.board},
          fx, &out, &err) != 0) {
    return "soak tiny.json --runs 1 failed: " + err + out;
  }
  return "";
}

}  // namespace ctte::hostile

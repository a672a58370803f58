// RemoteBoard: protocol client plus child-process supervision (see remote_board.h).
#include "lab/remote_board.h"

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/files.h"
#include "lab/wire.h"

namespace ctte::lab {

namespace {
using wire::Json;
constexpr size_t kStderrKeepBytes = 16 * 1024;

std::string DescribeWait(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + " (SIG" + (abbrev ? abbrev : "?") + ")";
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "wait status " + std::to_string(status);
}

bool LooksLikeRtlAssertion(const std::string& text) {
  for (const char* marker : {"RTL assertion", "Assertion failed", "$fatal", "%Fatal", "%Error"}) {
    if (text.find(marker) != std::string::npos) return true;
  }
  return false;
}
}  // namespace

Result<std::unique_ptr<RemoteBoard>> RemoteBoard::Spawn(const RemoteBoardOptions& options) {
  if (::access(options.board_path.c_str(), X_OK) != 0) {
    return Status::NotFound("board executable " + options.board_path + ": " +
                            std::strerror(errno));
  }
  std::unique_ptr<RemoteBoard> b(new RemoteBoard(options));
  CTTE_RETURN_IF_ERROR(b->StartChild());
  return b;
}

std::unique_ptr<RemoteBoard> RemoteBoard::Connect(int fd, const RemoteBoardOptions& options) {
  std::unique_ptr<RemoteBoard> b(new RemoteBoard(options));
  b->fd_ = fd;
  b->reader_ = std::make_unique<FrameReader>(fd);
  return b;
}

RemoteBoard::~RemoteBoard() {
  if (fd_ >= 0 && pid_ > 0) {
    options_.request_timeout_ms = 5'000;
    (void)Shutdown();
  }
  if (fd_ >= 0 || pid_ > 0) Reap(/*kill_first=*/true);
  if (stderr_thread_.joinable()) stderr_thread_.join();
}

Status RemoteBoard::StartChild() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Status::IOError(std::string("socketpair: ") + std::strerror(errno));
  }
  int ep[2];
  if (::pipe2(ep, O_CLOEXEC) != 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> argv_s = {options_.board_path};
  argv_s.insert(argv_s.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {sv[0], sv[1], ep[0], ep[1]}) ::close(fd);
    return Status::IOError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    ::dup2(ep[1], 2);
    ::execv(argv[0], argv.data());
    const char msg[] = "ctte-board: exec failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(sv[1]);
  ::close(ep[1]);
  fd_ = sv[0];
  pid_ = pid;
  stderr_fd_ = ep[0];
  reader_ = std::make_unique<FrameReader>(fd_);
  death_.clear();
  {
    std::lock_guard<std::mutex> lock(stderr_mu_);
    stderr_buf_.clear();
  }
  const int efd = stderr_fd_;
  stderr_thread_ = std::thread([this, efd] {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(efd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard<std::mutex> lock(stderr_mu_);
      stderr_buf_.append(buf, static_cast<size_t>(n));
      if (stderr_buf_.size() > kStderrKeepBytes) {
        stderr_buf_.erase(0, stderr_buf_.size() - kStderrKeepBytes);
      }
    }
    ::close(efd);
  });
  return Status::Ok();
}

std::string RemoteBoard::Reap(bool kill_first) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  reader_.reset();
  std::string how = "stream closed";
  if (pid_ > 0) {
    if (kill_first) ::kill(pid_, SIGKILL);
    int status = 0;
    pid_t r = 0;
    // A child that closed its stream is normally gone at once; give it 2 s, then kill it.
    for (int i = 0; i < 200; ++i) {
      r = ::waitpid(pid_, &status, WNOHANG);
      if (r != 0) break;
      ::usleep(10'000);
    }
    if (r == 0) {
      ::kill(pid_, SIGKILL);
      r = ::waitpid(pid_, &status, 0);
    }
    how = r == pid_ ? DescribeWait(status) : std::string("lost track of the child");
    pid_ = -1;
  }
  if (stderr_thread_.joinable()) stderr_thread_.join();
  return how;
}

std::string RemoteBoard::StderrTail() {
  std::lock_guard<std::mutex> lock(stderr_mu_);
  std::string text = stderr_buf_;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t pos = text.size();
  for (size_t lines = 0; lines < options_.stderr_tail_lines && pos != std::string::npos;) {
    pos = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
    ++lines;
  }
  std::string tail = pos == std::string::npos ? text : text.substr(pos + 1);
  for (char& c : tail) {
    if (c == '\n') c = '|';
  }
  return tail.empty() ? "(empty)" : tail;
}

Status RemoteBoard::Dead(const std::string& how) {
  const std::string tail = StderrTail();
  death_ = how + "; stderr: " + tail;
  if (LooksLikeRtlAssertion(tail)) return RtlAssertionError("board died: " + death_);
  return BoardDiedError(death_);
}

Result<RemoteBoard::Reply> RemoteBoard::Call(const std::string& op, Json fields,
                                             std::vector<uint8_t> payload, int timeout_ms) {
  if (fd_ < 0) {
    return BoardDiedError(death_.empty() ? "no board process (call Respawn())"
                                         : "earlier: " + death_ + " (call Respawn())");
  }
  const uint64_t id = next_id_++;
  fields["v"] = kProtocolVersion;
  fields["id"] = id;
  fields["op"] = op;
  const int64_t deadline = MonotonicMs() + timeout_ms;
  const auto timed_out = [&] {
    Reap(/*kill_first=*/true);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%g s (op %s); board killed",
                  static_cast<double>(timeout_ms) / 1000.0, op.c_str());
    death_ = std::string("timeout after ") + buf;
    return BoardTimeoutError(buf);
  };
  Status ws = WriteFrame(fd_, Frame{fields.dump(), std::move(payload)}, timeout_ms);
  if (ws.code() == Status::Code::kTimeout) return timed_out();
  if (!ws.ok()) return Dead(Reap(/*kill_first=*/false));
  const int64_t left = deadline - MonotonicMs();
  Result<Frame> resp = reader_->Read(left > 0 ? static_cast<int>(left) : 1);
  if (!resp.ok()) {
    const Status& rs = resp.status();
    if (rs.code() == Status::Code::kTimeout) return timed_out();
    if (rs.code() == Status::Code::kUnavailable) return Dead(Reap(/*kill_first=*/false));
    // Garbage or a torn frame: the stream cannot be trusted any more.
    const bool eof_inside = rs.message().find("ended inside") != std::string::npos;
    const std::string how = Reap(/*kill_first=*/!eof_inside);
    if (eof_inside) return Dead(how + " (" + rs.message() + ")");
    death_ = "protocol error: " + rs.message();
    return Status::Corruption("board protocol (op " + op + "): " + rs.message());
  }
  Json h = Json::parse(resp->header, nullptr, /*allow_exceptions=*/false);
  if (h.is_discarded() || !h.is_object()) {
    return Status::Corruption("board protocol (op " + op + "): response header is not JSON");
  }
  uint64_t rid = 0;
  bool ok = false;
  Status s = wire::GetU64(h, "response", "id", &rid);
  if (s.ok()) s = wire::GetBool(h, "response", "ok", &ok);
  if (!s.ok()) return Status::Corruption("board protocol (op " + op + "): " + s.message());
  if (!ok) {
    return wire::StatusFromJson(h.contains("error") ? h["error"] : Json());
  }
  if (rid != id) {
    return Status::Corruption("board protocol (op " + op + "): response id " +
                              std::to_string(rid) + ", expected " + std::to_string(id));
  }
  return Reply{std::move(resp->header), std::move(resp->payload)};
}

Result<BoardIdentity> RemoteBoard::Identify() {
  Result<Reply> r = Call("identify", Json::object(), {}, options_.request_timeout_ms);
  if (!r.ok()) return r.status();
  const Json h = Json::parse(r->header);
  BoardIdentity id;
  if (!h.contains("identity")) return Status::Corruption("identify response: identity missing");
  CTTE_RETURN_IF_ERROR(wire::FromJson(h["identity"], "identity", &id));
  id.kind = "remote:" + id.kind;
  return id;
}

Result<DeployReceipt> RemoteBoard::Deploy(const DeployRequest& request) {
  std::vector<uint8_t> bytes = request.bytes;
  if (bytes.empty()) {
    // The target is another process: ship the image itself, never just a path.
    Result<std::vector<uint8_t>> file = ReadFileBytes(request.path);
    if (!file.ok()) return file.status();
    bytes = std::move(*file);
  }
  Json f{{"name", request.name},
         {"expected_sha256", request.expected_sha256},
         {"expected_build_id", wire::HexU64(request.expected_build_id)}};
  Result<Reply> r = Call("deploy", std::move(f), std::move(bytes), options_.deploy_timeout_ms);
  if (!r.ok()) return r.status();
  const Json h = Json::parse(r->header);
  DeployReceipt receipt;
  if (!h.contains("receipt")) return Status::Corruption("deploy response: receipt missing");
  CTTE_RETURN_IF_ERROR(wire::FromJson(h["receipt"], "receipt", &receipt));
  return receipt;
}

Result<uint64_t> RemoteBoard::SetClock(ClockDomain domain, uint64_t hz) {
  Result<Reply> r = Call("set_clock", Json{{"domain", ClockDomainName(domain)}, {"hz", hz}}, {},
                         options_.request_timeout_ms);
  if (!r.ok()) return r.status();
  uint64_t v = 0;
  CTTE_RETURN_IF_ERROR(wire::GetU64(Json::parse(r->header), "response", "hz", &v));
  return v;
}

Result<uint64_t> RemoteBoard::ReadClock(ClockDomain domain) {
  Result<Reply> r = Call("read_clock", Json{{"domain", ClockDomainName(domain)}}, {},
                         options_.request_timeout_ms);
  if (!r.ok()) return r.status();
  uint64_t v = 0;
  CTTE_RETURN_IF_ERROR(wire::GetU64(Json::parse(r->header), "response", "hz", &v));
  return v;
}

Status RemoteBoard::WriteReg(uint32_t offset, uint32_t value) {
  Result<Reply> r = Call("write_reg", Json{{"offset", offset}, {"value", value}}, {},
                         options_.request_timeout_ms);
  return r.status();
}

Result<uint32_t> RemoteBoard::ReadReg(uint32_t offset) {
  Result<Reply> r = Call("read_reg", Json{{"offset", offset}}, {}, options_.request_timeout_ms);
  if (!r.ok()) return r.status();
  uint32_t v = 0;
  CTTE_RETURN_IF_ERROR(wire::GetU32(Json::parse(r->header), "response", "value", &v));
  return v;
}

Result<Capture> RemoteBoard::Run(const RunPlan& plan) {
  Result<Reply> r = Call("run", Json{{"plan", wire::ToJson(plan)}}, {}, options_.run_timeout_ms);
  if (!r.ok()) return r.status();
  const Json h = Json::parse(r->header);
  Capture c;
  if (!h.contains("capture")) return Status::Corruption("run response: capture missing");
  CTTE_RETURN_IF_ERROR(wire::FromJson(h["capture"], "capture", &c));
  c.bytes = std::move(r->payload);
  return c;
}

Status RemoteBoard::Shutdown() {
  if (fd_ < 0) return Status::Ok();
  Result<Reply> r = Call("shutdown", Json::object(), {}, options_.request_timeout_ms);
  if (fd_ >= 0) Reap(/*kill_first=*/false);
  return r.status();
}

Status RemoteBoard::Respawn() {
  if (fd_ >= 0 || pid_ > 0) Reap(/*kill_first=*/true);
  if (pid_ < 0 && options_.board_path.empty()) {
    return Status::InvalidArgument("this RemoteBoard has no child to respawn");
  }
  return StartChild();
}

Status RemoteBoard::TEST_Request(const std::string& op, int timeout_ms) {
  return Call(op, Json::object(), {}, timeout_ms).status();
}

}  // namespace ctte::lab

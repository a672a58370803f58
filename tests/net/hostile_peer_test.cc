// The hostile-peer suite (issue #27): one live agent on 127.0.0.1 (lab/net/agent.h, serving a
// counting FakeBoard, allowlist {runner, revoked, expired}, an image allowlist of one image)
// and a table of peers that try what a stolen or foreign certificate, or a runner holding a
// valid one, should not be able to do:
//   tls    no certificate, another CA, a revoked, an expired, a board's (serverAuth only)
//          certificate, a runner not on the allowlist, plain TCP, garbage, silence;
//   frame  an oversized header length, a truncated frame, a payload over its op's cap;
//   op     every path field (deploy.path, plan.workload_elf, plan.fst_path) aimed at a canary
//          file, payload fields missing, an image not on the allowlist (sent or cached), unknown
//          and TEST_* ops, huge names, log injection through the op and the image name.
// Each case must be refused with the stated reason (in the reply, or in the agent's log), the
// board must not see a refused deploy or run, the canary must be neither read back, changed nor
// created, no reply may carry the canary's digest, and a good runner is served after every case.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/time.h>

#include "base/files.h"
#include "base/sha256.h"
#include "base/text.h"
#include "lab/net/agent.h"
#include "lab/net/net_board.h"
#include "lab/net/pki.h"
#include "lab/net/tls_bridge.h"
#include "lab/wire.h"
#include "tests/lab/fake_board.h"
#include "tests/lab/net_test_util.h"
#include "tests/net/host_sweep.h"

namespace ctte::lab::net {
namespace {

using Json = nlohmann::json;

// A FakeBoard that counts the deploys and runs that reach it.
class CountingBoard : public FakeBoard {
 public:
  Result<DeployReceipt> Deploy(const DeployRequest& r) override {
    ++deploys;
    return FakeBoard::Deploy(r);
  }
  Result<Capture> Run(const RunPlan& p) override {
    ++runs;
    return FakeBoard::Run(p);
  }
  std::atomic<int> deploys{0}, runs{0};
};

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

// What a case can refer to.
struct World {
  std::string canary;        ///< a secret file the agent could read
  std::string canary_sha;    ///< its SHA-256: no reply may carry it
  std::string fst_target;    ///< a path the agent must not create
  std::string canary_link;   ///< a symbolic link to the canary
  std::vector<uint8_t> good_image, bad_image, workload;
  std::string good_sha, bad_sha, workload_sha;
};

World& W() {
  static World w;
  return w;
}

Json Plan(const std::string& elf, const std::string& fst = "") {
  RunPlan p;
  p.workload_elf = elf;
  p.fst_path = fst;
  p.ring_bytes = 16;
  return wire::ToJson(p);
}

// A runner that completes a TLS 1.2 handshake with `f`, then asks the peer to renegotiate
// (TLS 1.3 has none). Ok: the renegotiation completed; otherwise what OpenSSL said. Plain
// blocking OpenSSL, so nothing of lab/net's own TLS set-up is assumed.
Status Renegotiate(uint16_t port, const TlsFiles& f, int timeout_ms) {
  ::signal(SIGPIPE, SIG_IGN);  // OpenSSL writes to a socket the agent may have closed
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        SSL_CTX_free);
  if (!ctx || SSL_CTX_set_max_proto_version(ctx.get(), TLS1_2_VERSION) != 1 ||
      SSL_CTX_use_certificate_chain_file(ctx.get(), f.cert.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx.get(), f.key.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_load_verify_locations(ctx.get(), f.ca.c_str(), nullptr) != 1) {
    return Status::Internal("client TLS set-up failed");
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&dst), sizeof dst) != 0) {
    ::close(fd);
    return Status::IOError("connect failed");
  }
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(ctx.get()), SSL_free);
  SSL_set_fd(ssl.get(), fd);
  auto why = [&](const std::string& step) {
    char buf[256];
    ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
    ::close(fd);
    return Status::Unavailable(step + ": " + buf);
  };
  if (SSL_connect(ssl.get()) != 1) return why("handshake");
  if (SSL_version(ssl.get()) != TLS1_2_VERSION) return why("not TLS 1.2");
  if (SSL_renegotiate(ssl.get()) != 1) return why("SSL_renegotiate");
  if (SSL_do_handshake(ssl.get()) != 1) return why("renegotiation");
  ::close(fd);
  return Status::Ok();
}

enum class Kind { kTls, kRaw, kFrame, kOp, kRenegotiate };

struct Case {
  std::string name;
  Kind kind;
  /// kTls: connect with these files (nullptr: no certificate at all). kRaw: bytes sent on
  /// plain TCP instead of a handshake. kFrame: bytes sent inside a good TLS session (a name
  /// starting "Truncated": the peer then leaves). kOp: the request.
  std::function<TlsFiles(const Pki&)> tls;
  std::function<std::string()> raw;
  std::string op;
  std::function<Json()> fields;
  std::function<std::vector<uint8_t>()> payload;
  /// kOp: put these bytes in the agent's cache first (a cached image off the allowlist).
  std::function<std::vector<uint8_t>()> put_first;
  std::string expect;  ///< in the reply (kOp) or the agent's log (kTls, kFrame)
};

// GoogleTest and ctest name a case by this.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string Prefix(uint32_t hlen, uint32_t plen) {
  std::string p("CTB1", 4);
  for (int i = 0; i < 4; ++i) p.push_back(static_cast<char>((hlen >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) p.push_back(static_cast<char>((plen >> (8 * i)) & 0xff));
  return p;
}

// A frame's prefix and a request header for `op` announcing `payload` bytes that never follow.
std::string WithHeader(const std::string& op, uint32_t payload) {
  const std::string h = Json{{"v", 1}, {"id", 7}, {"op", op}, {"sha256", std::string(64, 'a')}}.dump();
  return Prefix(static_cast<uint32_t>(h.size()), payload) + h;
}

const std::string kZeros(64, '0');

const Case kCases[] = {
    // --- TLS: who may connect ---
    {"NoCertificate", Kind::kTls, nullptr, {}, "", {}, {}, {}, "TLS handshake failed"},
    {"OtherCa", Kind::kTls, [](const Pki& p) { return p.ForeignRunner(); }, {}, "", {}, {}, {},
     "certificate: unable to get local issuer certificate"},
    {"RevokedRunner", Kind::kTls, [](const Pki& p) { return p.Files("revoked"); }, {}, "", {}, {},
     {}, "certificate: certificate revoked"},
    {"ExpiredRunner", Kind::kTls, [](const Pki& p) { return p.Files("expired"); }, {}, "", {}, {},
     {}, "certificate: certificate has expired"},
    {"BoardCertificateAsClient", Kind::kTls,
     [](const Pki& p) {
       TlsFiles f = p.Files("board-b");  // serverAuth only: a board's key cannot drive an agent
       return f;
     },
     {}, "", {}, {}, {}, "certificate: unsuitable certificate purpose"},
    // Named "runner" (on the allowlist) but with the wrong extended key usage, or none: OpenSSL's
    // purpose check alone would let the one without the extension through.
    {"RunnerNameWrongEku", Kind::kTls,
     [](const Pki& p) { return IssuedFiles("runner", p.ca(), p.dir() + "/eku-email"); }, {}, "",
     {}, {}, {}, "certificate: unsuitable certificate purpose"},
    {"RunnerNameNoEku", Kind::kTls,
     [](const Pki& p) { return IssuedFiles("runner", p.ca(), p.dir() + "/eku-none"); }, {}, "", {},
     {}, {}, "certificate: unsuitable certificate purpose"},
    {"Renegotiation", Kind::kRenegotiate, [](const Pki& p) { return p.Files("runner"); }, {}, "",
     {}, {}, {}, "ended: peer: sslv3 alert handshake failure; bytes from client 0"},
    {"RunnerNotOnAllowlist", Kind::kTls, [](const Pki& p) { return p.Files("runner-b"); }, {}, "",
     {}, {}, {}, "\"runner-b\" is not in this agent's allowlist"},
    // --- framing (inside a good TLS session; the session ends, the agent goes on) ---
    {"OversizedHeader", Kind::kFrame, {}, [] { return Prefix((1u << 20) + 1, 0); }, "", {}, {}, {},
     "frame header length 1048577 out of range"},
    {"OversizedPayload", Kind::kFrame, {}, [] { return Prefix(2, 0xffffffffu) + "{}"; }, "", {}, {},
     {}, "frame payload length 4294967295 exceeds"},
    {"BadMagic", Kind::kFrame, {}, [] { return std::string("XXXX") + std::string(8, '\0'); }, "",
     {}, {}, {}, "bad frame magic"},
    {"TruncatedFrame", Kind::kFrame, {}, [] { return Prefix(100'000, 0) + "{\"v\":1"; }, "", {}, {},
     {}, "stream ended inside a frame"},
    // --- per-op payload caps, checked from the header before any payload byte is read (the
    //     bytes are never sent: the agent must answer at once) ---
    {"DeployImageOverCap", Kind::kFrame, {}, [] { return WithHeader("deploy", 300u << 20); }, "",
     {}, {}, {}, "payload of 314572800 bytes for op \"deploy\" exceeds this agent's cap of 268435456"},
    {"PutOverCap", Kind::kFrame, {}, [] { return WithHeader("put", 65u << 20); }, "", {}, {}, {},
     "payload of 68157440 bytes for op \"put\" exceeds this agent's cap of 67108864"},
    {"IdentifyWithPayload", Kind::kFrame, {}, [] { return WithHeader("identify", 1); }, "", {}, {},
     {}, "payload of 1 bytes for op \"identify\" exceeds this agent's cap of 0"},
    {"RunWithPayload", Kind::kFrame, {}, [] { return WithHeader("run", 4096); }, "", {}, {}, {},
     "payload of 4096 bytes for op \"run\" exceeds this agent's cap of 0"},
    {"PayloadWithoutOp", Kind::kFrame, {}, [] { return Prefix(2, 1000) + "{}"; }, "", {}, {}, {},
     "payload of 1000 bytes for a header without an op exceeds"},
    // --- ops: paths ---
    {"DeployPath", Kind::kOp, {}, {}, "deploy",
     [] { return Json{{"name", "x"}, {"path", W().canary}}; }, {}, {}, "deploy.path"},
    {"DeployPathAsHashOracle", Kind::kOp, {}, {}, "deploy",
     [] { return Json{{"name", "x"}, {"path", W().canary}, {"expected_sha256", kZeros}}; }, {}, {},
     "deploy.path"},
    {"DeployPathWithPayload", Kind::kOp, {}, {}, "deploy",
     [] {
       return Json{{"name", "x"}, {"path", W().canary}, {"payload_sha256", W().good_sha}};
     },
     [] { return W().good_image; }, {}, "deploy.path"},
    {"DeployWithoutPayloadName", Kind::kOp, {}, {}, "deploy", [] { return Json{{"name", "x"}}; },
     [] { return W().good_image; }, {}, "payload_sha256: missing"},
    {"RunWorkloadPath", Kind::kOp, {}, {}, "run", [] { return Json{{"plan", Plan(W().canary)}}; },
     {}, {}, "plan.workload_elf"},
    {"RunWorkloadPathBesideHash", Kind::kOp, {}, {}, "run",
     [] { return Json{{"plan", Plan(W().canary)}, {"workload_sha256", W().workload_sha}}; }, {},
     [] { return W().workload; }, "plan.workload_elf"},
    {"RunFstPath", Kind::kOp, {}, {}, "run",
     [] {
       return Json{{"plan", Plan("", W().fst_target)}, {"workload_sha256", W().workload_sha}};
     },
     {}, [] { return W().workload; }, "plan.fst_path"},
    {"RunWithoutWorkloadHash", Kind::kOp, {}, {}, "run", [] { return Json{{"plan", Plan("")}}; },
     {}, {}, "workload_sha256: missing"},
    // --- ops: native code only from the agent's trust ---
    {"ImageNotOnAllowlist", Kind::kOp, {}, {}, "deploy",
     [] { return Json{{"name", "evil"}, {"payload_sha256", W().bad_sha}}; },
     [] { return W().bad_image; }, {}, "not in this agent's image allowlist"},
    {"CachedImageNotOnAllowlist", Kind::kOp, {}, {}, "deploy",
     [] { return Json{{"name", "evil"}, {"payload_sha256", W().bad_sha}}; }, {},
     [] { return W().bad_image; }, "not in this agent's image allowlist"},
    // --- ops: names and unknown ops ---
    {"UnknownOp", Kind::kOp, {}, {}, "frobnicate", [] { return Json::object(); }, {}, {},
     "unknown op \"frobnicate\""},
    {"TestAbort", Kind::kOp, {}, {}, "TEST_abort", [] { return Json::object(); }, {}, {},
     "unknown op \"TEST_abort\""},
    {"TestExit", Kind::kOp, {}, {}, "TEST_exit", [] { return Json::object(); }, {}, {},
     "unknown op \"TEST_exit\""},
    {"HugeOpName", Kind::kOp, {}, {}, "", [] { return Json::object(); }, {}, {},
     "(100000 bytes)"},
    {"HugeImageName", Kind::kOp, {}, {}, "deploy",
     [] { return Json{{"name", std::string(100'000, 'N')}, {"payload_sha256", W().bad_sha}}; },
     [] { return W().bad_image; }, {}, "(100000 bytes)"},
    {"LogInjectionInOp", Kind::kOp, {}, {}, "identify\nctte-board: FORGED", [] { return Json::object(); },
     {}, {}, "unknown op \"identify?ctte-board: FORGED\""},
    {"LogInjectionInImageName", Kind::kOp, {}, {}, "deploy",
     [] { return Json{{"name", "x\nFORGED"}, {"payload_sha256", W().bad_sha}}; },
     [] { return W().bad_image; }, {}, "image \"x?FORGED\""},
};

// The table above, and families generated from it (data-driven, like the hostile-input
// corpus): every path field with every spelling of a file the agent must not touch, huge
// strings in every hash field, op names that are almost right, and control bytes in every
// string the agent may log.
std::vector<Case> AllCases() {
  std::vector<Case> all(std::begin(kCases), std::end(kCases));
  const std::vector<std::pair<std::string, std::function<std::string()>>> spellings = {
      {"Canary", [] { return W().canary; }},
      {"DotDot", [] { return "/../../.." + W().canary; }},
      {"Symlink", [] { return W().canary_link; }},
      {"ProcEnviron", [] { return std::string("/proc/self/environ"); }},
      {"DevZero", [] { return std::string("/dev/zero"); }},
      {"EtcShadow", [] { return std::string("/etc/shadow"); }},
      {"Relative", [] { return std::string("canary-secret"); }},
      {"FileUrl", [] { return "file://" + W().canary; }},
      {"Tilde", [] { return std::string("~/.ssh/id_rsa"); }},
      {"EmbeddedNul", [] { return W().canary + std::string(1, '\0') + ".so"; }},
      {"DotSlash", [] { return std::string("./canary-secret"); }},
      {"DoubleSlashes", [] { return "//" + W().canary; }},
      {"ProcSelfMem", [] { return std::string("/proc/self/mem"); }},
      {"DevStdin", [] { return std::string("/dev/stdin"); }},
      {"SysFile", [] { return std::string("/sys/kernel/mm/transparent_hugepage/enabled"); }},
      {"FiveThousandBytes", [] { return "/" + std::string(5'000, 'a'); }},
  };
  const auto workload = [] { return W().workload; };
  for (const auto& [spelling, path] : spellings) {
    all.push_back({"DeployPath" + spelling, Kind::kOp, {}, {}, "deploy",
                   [path] {
                     return Json{{"name", "x"}, {"path", path()}, {"payload_sha256", W().good_sha}};
                   },
                   [] { return W().good_image; }, {}, "deploy.path"});
    all.push_back({"RunWorkloadPath" + spelling, Kind::kOp, {}, {}, "run",
                   [path] { return Json{{"plan", Plan(path())}, {"workload_sha256", W().workload_sha}}; },
                   {}, workload, "plan.workload_elf"});
    all.push_back({"RunFstPath" + spelling, Kind::kOp, {}, {}, "run",
                   [path] {
                     return Json{{"plan", Plan("", path())}, {"workload_sha256", W().workload_sha}};
                   },
                   {}, workload, "plan.fst_path"});
  }
  // A 100 KB string where a SHA-256 belongs: refused, and never echoed whole.
  const std::string huge(100'000, 'f');
  all.push_back({"HugeHaveName", Kind::kOp, {}, {}, "have", [huge] { return Json{{"sha256", huge}}; },
                 {}, {}, "(100000 bytes)"});
  all.push_back({"HugePutName", Kind::kOp, {}, {}, "put", [huge] { return Json{{"sha256", huge}}; },
                 workload, {}, "(100000 bytes)"});
  all.push_back({"HugeDeployPayloadName", Kind::kOp, {}, {}, "deploy",
                 [huge] { return Json{{"name", "x"}, {"payload_sha256", huge}}; },
                 [] { return W().good_image; }, {}, "(100000 bytes)"});
  all.push_back({"HugeExpectedSha", Kind::kOp, {}, {}, "deploy",
                 [huge] {
                   return Json{{"name", "x"}, {"payload_sha256", W().bad_sha}, {"expected_sha256", huge}};
                 },
                 [] { return W().bad_image; }, {}, "not in this agent's image allowlist"});
  all.push_back({"HugeClockDomain", Kind::kOp, {}, {}, "set_clock",
                 [huge] { return Json{{"domain", huge}, {"hz", 1000}}; }, {}, {}, "(100000 bytes)"});
  all.push_back({"HugeRunWorkloadName", Kind::kOp, {}, {}, "run",
                 [huge] { return Json{{"plan", Plan("")}, {"workload_sha256", huge}}; }, {}, {},
                 "(100000 bytes)"});
  // Op names one step from a real one.
  for (const auto& [name, op] : std::vector<std::pair<std::string, std::string>>{
           {"Capitalized", "Deploy"}, {"TrailingSpace", "deploy "}, {"LeadingSpace", " identify"},
           {"Tab", "identify\t"}, {"PathLike", "../deploy"}, {"Chained", "identify;shutdown"},
           {"TestHang", "TEST_hang"}, {"TestPrefix", "TEST_"}, {"Empty", ""},
           {"NulSuffix", std::string("identify\0", 9)}, {"CyrillicI", "\xd1\x96" "dentify"}}) {
    all.push_back({"AlmostOp" + name, Kind::kOp, {}, {}, op, [] { return Json::object(); }, {}, {},
                   "unknown op \"" + QuoteForMessage(op).substr(1)});
  }
  // Control bytes in every string the agent may log: shown as '?', never a line of their own.
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"CarriageReturn", "\r"}, {"Escape", "\x1b[2J"}, {"CrLf", "\r\n"}}) {
    all.push_back({"LogInjectionInOp" + name, Kind::kOp, {}, {}, "identify" + bytes + "FORGED",
                   [] { return Json::object(); }, {}, {}, "unknown op \"identify?"});
    all.push_back({"LogInjectionInImageName" + name, Kind::kOp, {}, {}, "deploy",
                   [b = bytes] { return Json{{"name", "x" + b + "FORGED"}, {"payload_sha256", W().bad_sha}}; },
                   [] { return W().bad_image; }, {}, "image \"x?"});
    all.push_back({"LogInjectionInClockDomain" + name, Kind::kOp, {}, {}, "set_clock",
                   [b = bytes] { return Json{{"domain", "fabric" + b + "FORGED"}, {"hz", 1000}}; }, {}, {},
                   "unknown clock domain \"fabric?"});
    all.push_back({"LogInjectionInHash" + name, Kind::kOp, {}, {}, "have",
                   [b = bytes] { return Json{{"sha256", "ab" + b + "FORGED"}}; }, {}, {}, "\"ab?"});
  }
  // Fields of the wrong type or out of range: refused by the request's parser, naming the field.
  for (const auto& [name, op, fields, expect] :
       std::vector<std::tuple<std::string, std::string, Json, std::string>>{
           {"ClockDomainNumber", "set_clock", Json{{"domain", 1}, {"hz", 1000}},
            "domain: expected a string, got 1"},
           {"ClockDomainUnknown", "set_clock", Json{{"domain", "cpu"}, {"hz", 1000}},
            "unknown clock domain \"cpu\" (fabric|sink)"},
           {"ClockHzNegative", "set_clock", Json{{"domain", "fabric"}, {"hz", -1}},
            "hz: expected an unsigned integer, got -1"},
           {"ClockHzText", "set_clock", Json{{"domain", "fabric"}, {"hz", "fast"}},
            "hz: expected an unsigned integer, got \"fast\""},
           {"RegOffsetText", "read_reg", Json{{"offset", "0x0"}},
            "offset: expected an unsigned integer, got \"0x0\""},
           {"RegOffsetOver32Bits", "write_reg", Json{{"offset", 4294967296LL}, {"value", 0}},
            "offset: 4294967296 does not fit 32 bits"},
           {"RegValueNegative", "write_reg", Json{{"offset", 0}, {"value", -1}},
            "value: expected an unsigned integer, got -1"},
           {"RegValueMissing", "write_reg", Json{{"offset", 0}}, "value: missing"},
           {"RunPlanMissing", "run", Json{{"workload_sha256", std::string(64, 'a')}}, "plan: missing"},
           {"RunPlanText", "run", Json{{"plan", "go"}, {"workload_sha256", std::string(64, 'a')}},
            "plan: expected an object"},
           {"RunRingBytesText", "run",
            Json{{"plan", {{"workload_elf", ""}, {"ring_bytes", "lots"}}},
                 {"workload_sha256", std::string(64, 'a')}},
            "plan.ring_bytes: expected an unsigned integer, got \"lots\""},
           {"HaveHashNumber", "have", Json{{"sha256", 7}}, "sha256: expected a string, got 7"},
           {"HugeNameArray", "deploy",
            Json{{"name", Json::array({std::string(100'000, 'N')})}, {"payload_sha256", std::string(64, 'a')}},
            "name: expected a string, got [\"NNNN"},
           {"DeployNameArray", "deploy",
            Json{{"name", Json::array()}, {"payload_sha256", std::string(64, 'a')}},
            "name: expected a string, got []"}}) {
    all.push_back({"Type" + name, Kind::kOp, {}, {}, op, [f = fields] { return f; }, {}, {}, expect});
  }
  // A payload on every op that takes none, announced in full (not only in the prefix).
  for (const char* op : {"have", "identify", "set_clock", "read_clock", "write_reg", "read_reg",
                         "shutdown", "heartbeat"}) {
    all.push_back({std::string("PayloadOn_") + op, Kind::kFrame, {},
                   [op] { return WithHeader(op, 16) + std::string(16, 'x'); }, "", {}, {}, {},
                   std::string("payload of 16 bytes for op \"") + op + "\" exceeds this agent's cap of 0"});
  }
  // Plain TCP that is not a TLS handshake: each is dropped and logged before any frame.
  const auto random_bytes = [](uint32_t seed) {
    std::mt19937 g(seed);
    std::string r(1024, '\0');
    for (char& ch : r) ch = static_cast<char>(g() & 0xff);
    return r;
  };
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"PlainHttp", "GET / HTTP/1.1\r\nHost: agent\r\n\r\n"},
           {"SshBanner", "SSH-2.0-OpenSSH_9.2p1\r\n"},
           {"Sslv2Hello", std::string("\x80\x2e\x01\x00\x02\x00\x15\x00\x00\x00\x10", 11) +
                              std::string(37, '\x01')},
           {"TlsRecordOfMaxLength", std::string("\x16\x03\x01\xff\xff", 5) + std::string(100, 'x')},
           {"TlsAlertFirst", std::string("\x15\x03\x03\x00\x02\x02\x28", 7)},
           {"ApplicationDataFirst", std::string("\x17\x03\x03\x00\x05hello", 10)},
           {"Zeros4K", std::string(4096, '\0')},
           {"Random1", random_bytes(1)},
           {"Random2", random_bytes(2)},
           {"Random3", random_bytes(3)},
           {"Random4", random_bytes(4)}}) {
    all.push_back({"Raw" + name, Kind::kRaw, {}, [b = bytes] { return b; }, "", {}, {}, {},
                   "TLS handshake failed"});
  }
  // Silence, and a ClientHello that stops after its first bytes: held until the deadline.
  all.push_back({"RawSilence", Kind::kRaw, {}, [] { return std::string(); }, "", {}, {}, {},
                 "no TLS handshake within 1000 ms"});
  all.push_back({"RawClientHelloThenSilence", Kind::kRaw, {},
                 [] { return std::string("\x16\x03\x01\x00\xc8\x01\x00\x00\xc4\x03\x03", 11); }, "",
                 {}, {}, {}, "no TLS handshake within 1000 ms"});
  // Frames cut short at each part, and prefixes that are not this protocol's.
  const std::string put_header = WithHeader("put", 1000);
  for (const auto& [name, bytes, expect] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"TruncatedInPrefix", std::string("CTB1\x05\x00", 6), "stream ended inside a frame"},
           {"TruncatedInHeader", Prefix(100, 0) + "{\"op\"", "stream ended inside a frame"},
           {"TruncatedInPayload", put_header + std::string(10, 'p'), "stream ended inside a frame"},
           {"ZeroHeaderLength", Prefix(0, 0), "frame header length 0 out of range"},
           {"MagicLowercase", std::string("ctb1") + std::string(8, '\0'), "bad frame magic 63 74 62 31"},
           {"MagicNextVersion", std::string("CTB2") + std::string(8, '\0'), "bad frame magic 43 54 42 32"},
           {"AllZeros", std::string(12, '\0'), "bad frame magic 00 00 00 00"}}) {
    all.push_back({"Frame" + name, Kind::kFrame, {}, [b = bytes] { return b; }, "", {}, {}, {}, expect});
  }
  return all;
}

// Where the table is aimed. By default the suite's own agent, in-process, serving a
// CountingBoard. With CTTE_HOSTILE_LAB set (tests/net/net_soak_attack_test.sh), an agent
// process (`ctte-board --listen`) of that lab folder: CTTE_HOSTILE_PORT its port,
// CTTE_HOSTILE_LOG its log file, and CTTE_HOSTILE_LEASED=NAME when runner NAME soaks through it
// meanwhile (every case that gets past the handshake must then be told "busy: leased by NAME").
// The agent allows runner, revoked (revoked before it started) and expired, and loads only the
// images of its --image-dir.
struct Target {
  bool external = false;
  std::string leased_by;  ///< "" = the agent is free
  uint16_t port = 0;
  std::string log_file;
};

const Target& T() {
  static const Target target = [] {
    Target t;
    const char* lab = std::getenv("CTTE_HOSTILE_LAB");
    if (lab == nullptr || *lab == '\0') return t;
    t.external = true;
    const char* port = std::getenv("CTTE_HOSTILE_PORT");
    const char* log = std::getenv("CTTE_HOSTILE_LOG");
    const char* leased = std::getenv("CTTE_HOSTILE_LEASED");
    t.port = static_cast<uint16_t>(port != nullptr ? std::atoi(port) : 0);
    t.log_file = log != nullptr ? log : "";
    t.leased_by = leased != nullptr ? leased : "";
    return t;
  }();
  return target;
}

class HostilePeerTest : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    const Target& t = T();
    pki_ = t.external ? new Pki(std::getenv("CTTE_HOSTILE_LAB")) : new Pki();
    const std::string certs = pki_->dir() + "/certs";
    // (An external lab may hold them from an earlier pass of the table.)
    if (!std::filesystem::exists(certs + "/runner-b.crt")) {
      ASSERT_TRUE(IssueCertificate("runner-b", pki_->ca(), certs, IssueOptions{}).ok());
    }
    for (const auto& [dir, eku] : {std::pair<std::string, std::string>{"/eku-email", "emailProtection"},
                                   {"/eku-none", "-"}}) {
      if (std::filesystem::exists(pki_->dir() + dir + "/runner.crt")) continue;
      ASSERT_TRUE(IssueCertificate("runner", pki_->ca(), pki_->dir() + dir,
                                   IssueOptions{.TEST_extended_key_usage = eku})
                      .ok());
    }
    if (!std::filesystem::exists(certs + "/expired.crt")) {
      ASSERT_TRUE(IssueCertificate("expired", pki_->ca(), certs,
                                   IssueOptions{.days = 30, .TEST_backdate_days = 60})
                      .ok());
    }
    if (!t.external) {  // an external agent loaded its revocation list when it started
      ASSERT_TRUE(IssueCertificate("revoked", pki_->ca(), certs, IssueOptions{}).ok());
      const Status r = RevokeCertificate("revoked", pki_->ca(), certs);
      ASSERT_TRUE(r.ok()) << r.ToString();
    }
    // The files a hostile path aims at sit in a folder of their own, the working directory
    // meanwhile (so "canary-secret" and "./canary-secret" name the canary too).
    outside_ = new std::string(MakeTempDir() + "/outside");
    std::filesystem::create_directories(*outside_);
    World& w = W();
    w.canary = *outside_ + "/canary-secret";
    {
      std::ofstream(w.canary) << "CANARY: the agent host's secret\n";
    }
    ::chmod(w.canary.c_str(), 0644);
    w.canary_sha = *Sha256File(w.canary);
    w.canary_link = *outside_ + "/innocent-looking-link";
    std::filesystem::create_symlink(w.canary, w.canary_link);
    w.fst_target = *outside_ + "/written-by-agent.fst";
    if (t.external) {
      // A real image of the agent's --image-dir is the trusted one.
      const char* image = std::getenv("CTTE_HOSTILE_IMAGE");
      ASSERT_NE(image, nullptr) << "CTTE_HOSTILE_IMAGE: an image the agent trusts";
      Result<std::vector<uint8_t>> bytes = ReadFileBytes(image);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      w.good_image = *bytes;
    } else {
      w.good_image = Bytes("a trusted image");
    }
    w.bad_image = Bytes("\x7f" "ELF a shared object the agent must never dlopen");
    w.workload = Bytes("a workload");
    w.good_sha = Sha256Hex(std::span<const uint8_t>(w.good_image));
    w.bad_sha = Sha256Hex(std::span<const uint8_t>(w.bad_image));
    w.workload_sha = Sha256Hex(std::span<const uint8_t>(w.workload));
    char cwd[4096];
    old_cwd_ = new std::string(::getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".");
    ASSERT_EQ(::chdir(outside_->c_str()), 0);
    if (!t.external) {
      board_ = new CountingBoard();
      agent_ = new RunningAgent(*board_, pki_->Files("board-a"), /*handshake_ms=*/1'000, 60'000,
                                [](AgentOptions& o) {
                                  o.allow = {"runner", "revoked", "expired"};
                                  // The table connects from 127.0.0.1 faster than a runner does.
                                  o.max_connections_per_second = kMaxConnectionRateLimit;
                                  o.server.image_allowlist = std::set<std::string>{W().good_sha};
                                });
    }
    // The sweep: the canary's folder and the lab CA's key watched for any access, /etc for
    // its secrets, and every entry under the canary's folder, the lab folder and /etc stat'ed.
    watch_ = new HostWatch();
    ASSERT_TRUE(watch_->Add(*outside_)) << watch_->error();
    ASSERT_TRUE(watch_->Add(pki_->ca(), {"ca.key"})) << watch_->error();
    ASSERT_TRUE(watch_->Add("/etc", {"shadow", "gshadow", "sudoers"}))
        << watch_->error();
    sweep_roots_ = new std::vector<std::string>{*outside_, pki_->ca(), "/etc"};
    snapshot_ = new HostSnapshot(TakeSnapshot(*sweep_roots_));
    (void)watch_->Drain();  // the snapshot's own opening of the watched folders
  }
  static void TearDownTestSuite() {
    if (old_cwd_ != nullptr) (void)::chdir(old_cwd_->c_str());
    if (outside_ != nullptr) {
      // The canary is read here, after the last sweep.
      EXPECT_EQ(*Sha256File(W().canary), W().canary_sha);
      std::error_code ec;
      std::filesystem::remove_all(std::filesystem::path(*outside_).parent_path(), ec);
    }
    delete agent_;
    delete board_;
    delete pki_;
    delete watch_;
    delete snapshot_;
    delete sweep_roots_;
    delete outside_;
    delete old_cwd_;
  }

  static uint16_t Port() { return T().external ? T().port : agent_->port(); }

  static std::unique_ptr<NetBoard> Runner() {
    Result<std::unique_ptr<NetBoard>> b =
        NetBoard::Connect(ClientOptions(*pki_, Port(), "board-a"));
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    return b.ok() ? std::move(*b) : nullptr;
  }

  static std::string AgentLog() {
    if (!T().external) return agent_->log();
    std::ifstream in(T().log_file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // The log lines added since `from`.
  static std::string LogSince(size_t from) {
    const std::string log = AgentLog();
    return from <= log.size() ? log.substr(from) : log;
  }

  static bool WaitLog(size_t from, const std::string& needle) {
    for (int i = 0; i < 300; ++i) {
      if (LogSince(from).find(needle) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  static Pki* pki_;
  static CountingBoard* board_;
  static RunningAgent* agent_;
  static std::string* outside_;
  static std::string* old_cwd_;
  static HostWatch* watch_;
  static HostSnapshot* snapshot_;
  static std::vector<std::string>* sweep_roots_;
};

Pki* HostilePeerTest::pki_ = nullptr;
CountingBoard* HostilePeerTest::board_ = nullptr;
RunningAgent* HostilePeerTest::agent_ = nullptr;
std::string* HostilePeerTest::outside_ = nullptr;
std::string* HostilePeerTest::old_cwd_ = nullptr;
HostWatch* HostilePeerTest::watch_ = nullptr;
HostSnapshot* HostilePeerTest::snapshot_ = nullptr;
std::vector<std::string>* HostilePeerTest::sweep_roots_ = nullptr;

// A runner's TLS handshake with an agent under attack takes less than this (docs/lab.md).
constexpr double kHandshakeBoundMs = 1'000;

// The earliest time the next case may start against an agent process.
std::chrono::steady_clock::time_point& PaceUntil() {
  static std::chrono::steady_clock::time_point t{};
  return t;
}

// Latencies of a good runner's TLS handshake measured after each case (external agent only),
// printed by the last case.
std::vector<double>& HandshakeMs() {
  static std::vector<double> v;
  return v;
}

TEST_P(HostilePeerTest, IsRefusedAndTheAgentKeepsServing) {
  const Case& c = GetParam();
  const World& w = W();
  const Target& t = T();
  const bool leased = !t.leased_by.empty();
  const std::string busy = "busy: leased by " + t.leased_by + " since";
  // An agent process keeps its default connection rate (20 a second from one address): a case
  // and its good runner, two connections, take at least 120 ms.
  if (t.external) std::this_thread::sleep_until(PaceUntil());
  const auto started = std::chrono::steady_clock::now();
  const size_t log_from = AgentLog().size();
  const uint64_t refused = t.external ? 0 : agent_->agent().refused();
  const int deploys = board_ != nullptr ? board_->deploys.load() : 0;
  const int runs = board_ != nullptr ? board_->runs.load() : 0;
  std::string reply;

  switch (c.kind) {
    case Kind::kTls: {
      Status s;
      if (!c.tls) {
        s = TEST_ConnectWithoutCertificate("127.0.0.1", Port(), pki_->ca() + "/ca.crt", 5'000);
      } else {
        NetBoardOptions o = ClientOptions(*pki_, Port(), "board-a");
        o.tls = c.tls(*pki_);
        Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(o);
        s = b.ok() ? (*b)->Identify().status() : b.status();
      }
      EXPECT_FALSE(s.ok()) << c.name << ": the agent served the peer";
      if (!t.external) {
        EXPECT_TRUE(agent_->WaitRefused(refused + 1)) << c.name;
      }
      EXPECT_TRUE(WaitLog(log_from, c.expect)) << c.name << ": log\n" << LogSince(log_from);
      break;
    }
    case Kind::kRenegotiate: {
      // A valid runner that, in TLS 1.2, asks for a new handshake inside its session (while
      // leased, it is told "busy" instead, and its renegotiation fails on that).
      const Status s = Renegotiate(Port(), c.tls(*pki_), 5'000);
      EXPECT_FALSE(s.ok()) << c.name << ": the agent renegotiated";
      reply = s.message();
      if (!leased) {
        EXPECT_NE(s.message().find("no renegotiation"), std::string::npos) << s.ToString();
      }
      EXPECT_TRUE(WaitLog(log_from, leased ? busy : c.expect))
          << c.name << ": log\n" << LogSince(log_from);
      break;
    }
    case Kind::kRaw: {
      PlainTcp(Port(), c.raw());
      if (!t.external) {
        EXPECT_TRUE(agent_->WaitRefused(refused + 1)) << c.name;
      }
      EXPECT_TRUE(WaitLog(log_from, c.expect)) << c.name << ": log\n" << LogSince(log_from);
      break;
    }
    case Kind::kFrame: {
      std::unique_ptr<NetBoard> b = Runner();
      ASSERT_NE(b, nullptr);
      ASSERT_TRUE(b->TEST_SendRaw(c.raw()).ok());
      const bool leaves = c.name.rfind("Truncated", 0) == 0 || c.name.rfind("FrameTruncated", 0) == 0;
      if (leaves && !leased) b.reset();  // the peer leaves mid-frame
      if (b != nullptr) {
        const Status s = b->Identify().status();
        EXPECT_FALSE(s.ok()) << c.name;
        reply = s.message();
        // The agent answers the malformed frame at once (not a timeout of ours).
        const std::string want = leased ? busy : c.expect;
        EXPECT_NE(s.message().find(want), std::string::npos) << c.name << ": " << s.ToString();
      }
      EXPECT_TRUE(WaitLog(log_from, leased ? busy : c.expect))
          << c.name << ": log\n" << LogSince(log_from);
      break;
    }
    case Kind::kOp: {
      std::unique_ptr<NetBoard> b = Runner();
      ASSERT_NE(b, nullptr);
      if (c.put_first && !leased) {
        const std::vector<uint8_t> bytes = c.put_first();
        ASSERT_TRUE(b->remote()
                        .TEST_Request("put", Json{{"sha256", Sha256Hex(std::span<const uint8_t>(bytes))}},
                                      bytes, 5'000)
                        .ok());
      }
      const std::string op = c.name == "HugeOpName" ? std::string(100'000, 'A') : c.op;
      const Status s = b->remote().TEST_Request(op, c.fields(), c.payload ? c.payload() : std::vector<uint8_t>{},
                                                5'000);
      EXPECT_FALSE(s.ok()) << c.name << ": the agent did it";
      EXPECT_EQ(s.code(), leased ? Status::Code::kUnavailable : Status::Code::kInvalidArgument)
          << c.name << ": " << s.ToString();
      reply = s.message();
      EXPECT_NE(reply.find(leased ? busy : c.expect), std::string::npos) << c.name << ": " << reply;
      EXPECT_LT(reply.size(), 1'000u) << c.name << ": a client string echoed whole";
      break;
    }
  }

  // Nothing refused reached the board; nothing outside the agent's folders was opened, read,
  // written, created or removed (the canary, the lab CA's key, /etc's secrets); no reply
  // carries the canary.
  if (board_ != nullptr) {
    EXPECT_EQ(board_->deploys.load(), deploys) << c.name;
    EXPECT_EQ(board_->runs.load(), runs) << c.name;
  }
  EXPECT_EQ(reply.find(w.canary_sha), std::string::npos) << c.name << ": the canary's digest";
  EXPECT_EQ(reply.find("CANARY"), std::string::npos) << c.name << ": the canary's text";
  const std::vector<std::string> touched = watch_->Drain();
  EXPECT_TRUE(touched.empty()) << c.name << ": " << ::testing::PrintToString(touched);
  HostSnapshot now = TakeSnapshot(*sweep_roots_);
  const std::vector<std::string> changed = SnapshotDiff(*snapshot_, now);
  EXPECT_TRUE(changed.empty()) << c.name << ": " << ::testing::PrintToString(changed);
  *snapshot_ = std::move(now);
  (void)watch_->Drain();  // the snapshot's own opening of the watched folders
  // No client string became a log line of its own.
  const std::string log = LogSince(log_from);
  EXPECT_EQ(log.find("\nFORGED"), std::string::npos) << log;
  EXPECT_EQ(log.find("\nctte-board: FORGED"), std::string::npos) << log;
  EXPECT_EQ(log.find(std::string(1'000, 'A')), std::string::npos) << c.name << ": a huge name logged";

  // The agent still serves a good runner; while leased, it completes the good runner's
  // handshake (timed: the latency a runner meets under attack) and tells it "busy".
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<NetBoard> good = Runner();
  ASSERT_NE(good, nullptr) << c.name;
  HandshakeMs().push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  if (!leased) {
    EXPECT_TRUE(good->Identify().ok()) << c.name;
  }
  PaceUntil() = started + std::chrono::milliseconds(120);
  if (t.external && HandshakeMs().size() == AllCases().size()) {
    std::vector<double> v = HandshakeMs();
    std::sort(v.begin(), v.end());
    std::printf("a good runner's TLS handshake after each of %zu cases: median %.1f ms, "
                "p95 %.1f ms, max %.1f ms\n",
                v.size(), v[v.size() / 2], v[v.size() * 95 / 100], v.back());
    // The bound docs/lab.md states: a tenth of the runner's 10 s connect timeout.
    EXPECT_LT(v.back(), kHandshakeBoundMs) << "a runner's handshake under attack";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, HostilePeerTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The table's size by class (issue #27 asks for at least 150 cases across TLS, framing and ops).
TEST(HostileTableTest, HasAtLeast150CasesInEveryClass) {
  std::map<std::string, int> by;
  for (const Case& c : AllCases()) {
    by[c.kind == Kind::kTls || c.kind == Kind::kRenegotiate ? "tls"
       : c.kind == Kind::kRaw                               ? "plain tcp"
       : c.kind == Kind::kFrame                             ? "framing"
                                                            : "ops"]++;
  }
  std::printf("hostile cases: %d tls, %d plain tcp, %d framing, %d ops\n", by["tls"],
              by["plain tcp"], by["framing"], by["ops"]);
  EXPECT_GE(AllCases().size(), 150u);
  for (const auto& [k, n] : by) EXPECT_GE(n, 5) << k;
}

// The legitimate path through the same agent still works: a trusted image deploys, a cached
// workload runs.
TEST_F(HostilePeerTest, AllowedImageAndCachedWorkloadAreServed) {
  if (T().external) GTEST_SKIP() << "in-process agent only";
  std::unique_ptr<NetBoard> b = Runner();
  ASSERT_NE(b, nullptr);
  const World& w = W();
  const int deploys = board_->deploys.load(), runs = board_->runs.load();
  Status s = b->remote().TEST_Request("put", Json{{"sha256", w.workload_sha}}, w.workload, 5'000);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = b->remote().TEST_Request("deploy", Json{{"name", "good"}, {"payload_sha256", w.good_sha}},
                               w.good_image, 5'000);
  EXPECT_TRUE(s.ok()) << s.ToString();
  s = b->remote().TEST_Request("run", Json{{"plan", Plan("")}, {"workload_sha256", w.workload_sha}},
                               {}, 5'000);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(board_->deploys.load(), deploys + 1);
  EXPECT_EQ(board_->runs.load(), runs + 1);
}

// A TCP connection from `from` (any 127.x.y.z address is this host's loopback) to the agent
// that says nothing: a peer holding a handshake slot until the agent's deadline.
int SilentPeer(const char* from, uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in src{};
  src.sin_family = AF_INET;
  ::inet_pton(AF_INET, from, &src.sin_addr);
  EXPECT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&src), sizeof src), 0) << from;
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
  EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&dst), sizeof dst), 0) << from;
  return fd;
}

// An agent with a 5 s handshake deadline serving "runner", under the limits a test sets.
class AgentLimitsTest : public ::testing::Test {
 protected:
  void Start(const std::function<void(AgentOptions&)>& limits) {
    agent_ = std::make_unique<RunningAgent>(board_, pki_.Files("board-a"), /*handshake_ms=*/5'000,
                                            60'000, [&](AgentOptions& o) {
                                              o.allow = {"runner"};
                                              limits(o);
                                            });
  }
  // A runner of 127.0.0.1 connects and identifies the board.
  ::testing::AssertionResult ServesARunner() {
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki_, agent_->port(), "board-a"));
    if (!b.ok()) return ::testing::AssertionFailure() << b.status().ToString();
    const Status s = (*b)->Identify().status();
    if (!s.ok()) return ::testing::AssertionFailure() << s.ToString();
    return ::testing::AssertionSuccess();
  }
  Pki pki_;
  FakeBoard board_;
  std::unique_ptr<RunningAgent> agent_;  // last: stopped before the board goes
};

// Silent peers cannot starve a runner (#27, bounded resources): handshakes run off the accept
// loop, at most 4 from one address and 16 in all here, each within the 5 s deadline. Twelve
// silent peers of one host hold 4 slots and are closed beyond that; a runner of another host is
// served at once, well inside one handshake deadline (before, the accept loop made every
// handshake in turn, so the runner waited 5 s for each silent peer ahead of it). Filling the
// 16 slots from four more hosts refuses the next peer at once, and the slots come back as the
// silent peers leave.
TEST_F(AgentLimitsTest, SilentPeersOfOneHostDoNotDelayARunnerOfAnother) {
  Start([](AgentOptions& o) {
    o.max_handshakes = 16;
    o.max_handshakes_per_address = 4;
  });
  RunningAgent& agent = *agent_;
  std::vector<int> silent;
  for (int i = 0; i < 12; ++i) silent.push_back(SilentPeer("127.0.0.2", agent.port()));
  EXPECT_TRUE(agent.WaitRefused(8));
  EXPECT_EQ(agent.agent().over_limit(), 8u);
  EXPECT_NE(agent.log().find("4 handshakes in flight from 127.0.0.2 (the per-address limit)"),
            std::string::npos)
      << agent.log();

  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(ServesARunner());
  const auto served_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - t0)
                             .count();
  EXPECT_LT(served_ms, 2'500) << "a runner waited behind silent peers";
  EXPECT_EQ(agent.agent().sessions(), 1u);

  // Four more hosts fill the other 12 slots; the 17th handshake is refused unheard.
  for (const char* from : {"127.0.0.3", "127.0.0.4", "127.0.0.5"}) {
    for (int i = 0; i < 4; ++i) silent.push_back(SilentPeer(from, agent.port()));
  }
  silent.push_back(SilentPeer("127.0.0.6", agent.port()));
  ASSERT_TRUE(agent.WaitRefused(9));
  EXPECT_EQ(agent.agent().over_limit(), 9u);
  EXPECT_NE(agent.log().find("16 handshakes in flight (the limit)"), std::string::npos)
      << agent.log();

  // The silent peers leave: their handshakes fail at once and free the slots.
  for (const int fd : silent) ::close(fd);
  EXPECT_TRUE(ServesARunner());
  EXPECT_EQ(agent.agent().over_limit(), 9u);
}

// A host that connects and closes in a tight loop gets one second's worth of connections (10
// here), the rest closed before any TLS work; a runner of another host is served meanwhile.
TEST_F(AgentLimitsTest, AConnectionFloodOfOneHostIsRateLimited) {
  Start([](AgentOptions& o) { o.max_connections_per_second = 10; });
  RunningAgent& agent = *agent_;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 60; ++i) ::close(SilentPeer("127.0.0.2", agent.port()));
  // Every one is refused: over the rate, or (let through) a failed handshake. The agent may
  // accept some only after the loop, so the time that counts is until the last is refused.
  ASSERT_TRUE(agent.WaitRefused(60));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // At most the bucket (10) plus what refilled meanwhile got through.
  const uint64_t at_most_through = 10 + static_cast<uint64_t>(secs * 10) + 1;
  EXPECT_GE(agent.agent().over_limit() + std::min<uint64_t>(at_most_through, 60), 60u) << secs << " s";
  EXPECT_NE(agent.log().find("more than 10 connections a second from 127.0.0.2 (the per-address rate)"),
            std::string::npos)
      << agent.log();
  EXPECT_TRUE(ServesARunner());
}

TEST_F(AgentLimitsTest, OutOfRangeLimitsAreRefused) {
  struct Limits {
    int total = 64, per = 8, conn_rate = 20, req_rate = 1'000;
    std::string what;
  };
  for (const Limits& l : std::vector<Limits>{
           {.total = 0, .per = 1, .what = "max_handshakes 0 out of range: expected 1..1024"},
           {.total = kMaxHandshakesLimit + 1, .per = 1, .what = "max_handshakes 1025 out of range"},
           {.total = 8, .per = 0, .what = "max_handshakes_per_address 0 out of range"},
           {.total = 8, .per = 9,
            .what = "max_handshakes_per_address 9 out of range: expected 1..max_handshakes (8)"},
           {.conn_rate = 0, .what = "max_connections_per_second 0 out of range: expected 1..10000"},
           {.req_rate = 0, .what = "max_requests_per_second 0 out of range: expected 1..1000000"},
           {.req_rate = kMaxRequestRateLimit + 1,
            .what = "max_requests_per_second 1000001 out of range"}}) {
    AgentOptions o;
    o.tls = pki_.Files("board-a");
    o.max_handshakes = l.total;
    o.max_handshakes_per_address = l.per;
    o.max_connections_per_second = l.conn_rate;
    o.max_requests_per_second = l.req_rate;
    Result<std::unique_ptr<Agent>> a = Agent::Listen(board_, o);
    ASSERT_FALSE(a.ok()) << l.what;
    EXPECT_NE(a.status().message().find(l.what), std::string::npos) << a.status().ToString();
  }
}

// A runner that floods its session with requests is slowed to the agent's request rate, not
// served as fast as it sends (#27, request rate limits): 110 identify requests at 50 a second
// (a bucket of 50) take at least 1.2 s, the agent logs the throttled session, and every
// request is still answered (a burst is delayed, not failed). A soaking runner sends at most
// about 65 a second to a simulated board; the default is 1000.
TEST_F(AgentLimitsTest, ARequestFloodOfOneSessionIsThrottled) {
  Start([](AgentOptions& o) { o.max_requests_per_second = 50; });
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki_, agent_->port(), "board-a"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 110; ++i) ASSERT_TRUE((*b)->Identify().ok()) << i;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(secs, 1.2);
  EXPECT_NE(agent_->log().find("'runner' at 127.0.0.1:"), std::string::npos);
  EXPECT_NE(agent_->log().find("requests over 50 a second (--max-request-rate): "), std::string::npos)
      << agent_->log();
}

// The runner's side of the roles: it refuses an agent that presents a runner's (clientAuth)
// certificate, and a board certificate that was revoked.
TEST(RunnerSideTest, RefusesAnAgentWithARunnerCertificateOrARevokedOne) {
  Pki pki;
  ASSERT_TRUE(IssueCertificate("board-r", pki.ca(), pki.dir() + "/certs",
                               IssueOptions{.role = Role::kBoard})
                  .ok());
  ASSERT_TRUE(RevokeCertificate("board-r", pki.ca(), pki.dir() + "/certs").ok());
  FakeBoard board;
  {
    // An agent serving with the runner's certificate: the runner's purpose check fails.
    RunningAgent agent(board, pki.Files("runner"));
    NetBoardOptions o = ClientOptions(pki, agent.port(), "runner");
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(o);
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.status().message().find("unsuitable certificate purpose"), std::string::npos)
        << b.status().ToString();
  }
  {
    // An agent whose certificate has no extended key usage at all (OpenSSL's purpose check
    // alone would take it as a board's): refused by the runner's role check.
    ASSERT_TRUE(IssueCertificate("board-n", pki.ca(), pki.dir() + "/certs",
                                 IssueOptions{.role = Role::kBoard, .TEST_extended_key_usage = "-"})
                    .ok());
    RunningAgent agent(board, pki.Files("board-n"));
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, agent.port(), "board-n"));
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.status().message().find("no serverAuth extended key usage"), std::string::npos)
        << b.status().ToString();
  }
  {
    RunningAgent agent(board, pki.Files("board-r"));
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, agent.port(), "board-r"));
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.status().message().find("certificate revoked"), std::string::npos)
        << b.status().ToString();
  }
  // The same board certificate before revocation is served (the check above is the CRL's).
  ASSERT_TRUE(IssueCertificate("board-s", pki.ca(), pki.dir() + "/certs",
                               IssueOptions{.role = Role::kBoard})
                  .ok());
  RunningAgent agent(board, pki.Files("board-s"));
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, agent.port(), "board-s"));
  EXPECT_TRUE(b.ok()) << b.status().ToString();
}

TEST(PkiTest, ValidityAndRevocationInputsAreChecked) {
  Pki pki;
  const std::string out = pki.dir() + "/certs";
  for (const int days : {0, -1, kMaxCertificateDays + 1}) {
    const Status s = IssueCertificate("d", pki.ca(), out, IssueOptions{.days = days});
    EXPECT_FALSE(s.ok()) << days;
    EXPECT_NE(s.message().find("expected 1..3650"), std::string::npos) << s.ToString();
  }
  EXPECT_TRUE(IssueCertificate("d", pki.ca(), out, IssueOptions{.days = kMaxCertificateDays}).ok());
  EXPECT_FALSE(ParseRole("admin").ok());
  // A certificate of another CA cannot be revoked with this one; an unknown name is NotFound.
  const Status foreign = RevokeCertificate("runner", pki.ca(), pki.dir() + "/other");
  EXPECT_FALSE(foreign.ok());
  EXPECT_NE(foreign.message().find("not issued by"), std::string::npos) << foreign.ToString();
  EXPECT_EQ(RevokeCertificate("nobody", pki.ca(), out).code(), Status::Code::kNotFound);
  // Revoking twice is Ok.
  EXPECT_TRUE(RevokeCertificate("d", pki.ca(), out).ok());
  EXPECT_TRUE(RevokeCertificate("d", pki.ca(), out).ok());
}

// The sweep sees what it must: a read of a watched file (by this process, as an in-process
// agent would), a write, a chmod, a creation and a removal, and nothing when nothing happens.
TEST(HostSweepTest, SeesReadsWritesCreationsAndRemovals) {
  const std::string dir = MakeTempDir();
  const std::string f = dir + "/secret";
  std::ofstream(f) << "secret\n";
  HostWatch watch;
  ASSERT_TRUE(watch.Add(dir, {"secret"})) << watch.error();
  const HostSnapshot before = TakeSnapshot({dir});
  (void)watch.Drain();
  EXPECT_TRUE(watch.Drain().empty());
  EXPECT_TRUE(SnapshotDiff(before, TakeSnapshot({dir})).empty());
  ASSERT_TRUE(Sha256File(f).ok());
  const std::vector<std::string> read = watch.Drain();
  ASSERT_FALSE(read.empty());
  EXPECT_EQ(read.front(), "open " + f);
  ::chmod(f.c_str(), 0600);
  std::ofstream(dir + "/new") << "x";
  std::filesystem::remove(f);
  EXPECT_EQ(SnapshotDiff(before, TakeSnapshot({dir})),
            (std::vector<std::string>{"changed " + dir, "created " + dir + "/new", "removed " + f}));
  std::ofstream(f) << "secret, again\n";
  const std::vector<std::string> d = SnapshotDiff(before, TakeSnapshot({dir}));
  EXPECT_NE(std::find(d.begin(), d.end(), "changed " + f), d.end()) << ::testing::PrintToString(d);
  std::filesystem::remove_all(dir);
}

// The renegotiation case can fail: a TLS server that allows a client's renegotiation (plain
// OpenSSL, SSL_OP_ALLOW_CLIENT_RENEGOTIATION) is seen to renegotiate by the same probe the
// table uses, while a server made by the agent's own MakeTlsContext refuses it.
TEST(RenegotiationProbeTest, SeesWhatTheServerAllows) {
  Pki pki;
  for (const bool allow : {true, false}) {
    Result<std::unique_ptr<asio::ssl::context>> ctx = MakeTlsContext(pki.Files("board-a"), true);
    ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
    SSL_CTX* sc = (*ctx)->native_handle();
    if (allow) {
      SSL_CTX_clear_options(sc, SSL_OP_NO_RENEGOTIATION);
      SSL_CTX_set_options(sc, SSL_OP_ALLOW_CLIENT_RENEGOTIATION);
    }
    const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    ASSERT_EQ(::bind(lfd, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(lfd, 1), 0);
    socklen_t len = sizeof a;
    ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
    std::thread server([&] {
      const int fd = ::accept(lfd, nullptr, nullptr);
      SSL* ssl = SSL_new(sc);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) == 1) {
        char buf[64];
        while (SSL_read(ssl, buf, sizeof buf) > 0) {  // a renegotiation is handled in here
        }
      }
      SSL_free(ssl);
      ::close(fd);
    });
    const Status s = Renegotiate(ntohs(a.sin_port), pki.Files("runner"), 5'000);
    server.join();
    ::close(lfd);
    if (allow) {
      EXPECT_TRUE(s.ok()) << s.ToString();
    } else {
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("no renegotiation"), std::string::npos) << s.ToString();
    }
  }
}

// A key that group or others may read is refused when the agent (or a runner) loads it.
TEST(PkiTest, AKeyOthersCanReadIsRefused) {
  Pki pki;
  const TlsFiles f = pki.Files("board-a");
  ASSERT_EQ(::chmod(f.key.c_str(), 0640), 0);
  FakeBoard board;
  AgentOptions o;
  o.tls = f;
  Result<std::unique_ptr<Agent>> a = Agent::Listen(board, o);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("has mode 0640: group or others may access it"),
            std::string::npos)
      << a.status().ToString();
}

}  // namespace
}  // namespace ctte::lab::net

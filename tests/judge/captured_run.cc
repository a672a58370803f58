#include "tests/judge/captured_run.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/json.h"
#include "base/sha256.h"
#include "lab/wire.h"

namespace ctte::testing {
namespace {

constexpr const char* kFormat = "ctte-judge-capture/1";

std::string ToHex(const std::vector<uint8_t>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

Result<std::vector<uint8_t>> FromHex(const std::string& s, const std::string& where) {
  if (s.size() % 2 != 0) return Status::InvalidArgument(where + ": odd number of hex digits");
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(s[2 * i]), lo = digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument(where + ": not a lower-case hex digit at character " +
                                     std::to_string(2 * i + (hi < 0 ? 0 : 1)));
    }
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

nlohmann::json CaptureJson(const lab::Capture& c) {
  nlohmann::json j = lab::wire::ToJson(c);
  j.erase("wall_seconds");  // the host's time: not part of what a golden file pins
  j["bytes_hex"] = ToHex(c.bytes);
  return j;
}

Result<lab::Capture> CaptureFromJson(const nlohmann::json& j, const std::string& where) {
  lab::Capture c;
  CTTE_RETURN_IF_ERROR(lab::wire::FromJson(j, where, &c));
  if (!j.contains("bytes_hex") || !j["bytes_hex"].is_string()) {
    return Status::InvalidArgument(where + ".bytes_hex: missing or not a string");
  }
  Result<std::vector<uint8_t>> bytes = FromHex(j["bytes_hex"].get<std::string>(),
                                               where + ".bytes_hex");
  if (!bytes.ok()) return bytes.status();
  c.bytes = std::move(*bytes);
  return c;
}

Result<nlohmann::json> ReadGolden(const std::string& path) {
  Result<nlohmann::ordered_json> parsed = ParseJsonFile(path);
  if (!parsed.ok()) return parsed.status();
  nlohmann::json j = *parsed;
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat) {
    return Status::InvalidArgument(path + ": $.format: expected \"" + std::string(kFormat) + "\"");
  }
  return j;
}

}  // namespace

runner::RunConfig BaseConfig(const std::string& image, const std::string& workload) {
  runner::RunConfig c;
  c.campaign = "judge_test";
  c.seed = 0x1234;
  c.image = image;
  c.workload = workload;
  c.mode = "htm";
  c.sync = "off";
  c.backpressure = "none";
  c.overflow_regime = "none";
  c.window = "full";
  c.interrupts = "none";
  c.fabric_hz = 75'000'000;  // below both images' fmax (closure gate)
  c.sink_hz = 100'000'000;
  c.core_stall_percent = 50;
  c.stall_seed = 11;
  c.sink_seed = 12;
  return c;
}

runner::RunConfig LossyPauseResumeConfig(const std::string& image) {
  runner::RunConfig b = BaseConfig(image, "sort");
  b.backpressure = "uniform:30";
  b.backpressure_params = {runner::Backpressure::Kind::kUniform, 30, 0, 0};
  b.sink_hz = 25'000'000;
  b.core_stall_percent = 0;
  b.window = "pause_resume";
  b.window_pause = 4000;
  b.window_resume = 6000;
  return b;
}

oracle::Observed CapturedRun::Observe() const {
  oracle::Observed o;
  o.stream = oracle::DecodeForJudging(capture.bytes, *run.program, run.expected.mode,
                                      run.expected.features);
  o.capture = runner::ToCaptureFacts(capture, run.plan.drain_budget_sink_cycles);
  if (has_twin) {
    o.twin = oracle::DecodeForJudging(twin_capture.bytes, *run.program, run.expected.mode,
                                      run.expected.features);
    o.twin_capture = runner::ToCaptureFacts(twin_capture, run.plan.drain_budget_sink_cycles);
  }
  return o;
}

oracle::Observed CapturedRun::ObserveBytes(const std::vector<uint8_t>& bytes) const {
  oracle::Observed o = Observe();
  o.stream = oracle::DecodeForJudging(bytes, *run.program, run.expected.mode,
                                      run.expected.features);
  return o;
}

std::string CaptureFileName(const runner::RunConfig& config, uint64_t max_instructions) {
  const std::string key =
      Sha256Hex(runner::RunConfigToJson(config) + "\n" + std::to_string(max_instructions));
  return config.image + "." + config.workload + "." + key.substr(0, 12) + ".json";
}

std::string ProgramDigest(const oracle::ProgramImage& program) {
  std::ostringstream s;
  s << "entry " << program.entry() << "\n";
  std::string text = s.str();
  for (const oracle::Segment& seg : program.segments()) {
    text += "segment " + std::to_string(seg.vaddr) + " " + std::to_string(seg.memsz) + " " +
            (seg.executable ? "x" : "-") + " " + Sha256Hex(std::span<const uint8_t>(seg.bytes)) +
            "\n";
  }
  return Sha256Hex(text);
}

Result<CaptureRequest> ReadCaptureRequest(const std::string& path) {
  Result<nlohmann::json> j = ReadGolden(path);
  if (!j.ok()) return j.status();
  CaptureRequest r;
  if (!j->contains("config") || !(*j)["config"].is_object()) {
    return Status::InvalidArgument(path + ": $.config: missing or not an object");
  }
  Result<runner::RunConfig> config = runner::RunConfigFromJson((*j)["config"].dump());
  if (!config.ok()) return Status::InvalidArgument(path + ": $.config: " + config.status().message());
  r.config = std::move(*config);
  if (!j->contains("max_instructions") || !(*j)["max_instructions"].is_number_unsigned()) {
    return Status::InvalidArgument(path + ": $.max_instructions: missing or not an unsigned integer");
  }
  r.max_instructions = (*j)["max_instructions"].get<uint64_t>();
  r.pending = j->value("pending", false);
  const std::string want = CaptureFileName(r.config, r.max_instructions);
  if (std::filesystem::path(path).filename() != want) {
    return Status::InvalidArgument(path + ": its configuration and budget are those of " + want +
                                   " (a golden file is named by what it holds)");
  }
  return r;
}

Result<std::unique_ptr<CapturedRun>> LoadCapturedRun(const std::string& dir,
                                                     const runner::RunConfig& config,
                                                     const runner::ExecuteOptions& options,
                                                     bool twin) {
  const std::string path = dir + "/" + CaptureFileName(config, options.max_instructions);
  if (!std::filesystem::exists(path)) {
    nlohmann::ordered_json req;
    req["format"] = kFormat;
    req["pending"] = true;
    req["config"] = nlohmann::ordered_json::parse(runner::RunConfigToJson(config));
    req["max_instructions"] = options.max_instructions;
    CTTE_RETURN_IF_ERROR(WriteFileAtomic(path, req.dump(2) + "\n"));
    return Status::NotFound(path + ": no golden capture for this configuration; the request is "
                            "written there: record it with scripts/record-captures "
                            "(docs/test-captures.md)");
  }
  Result<nlohmann::json> j = ReadGolden(path);
  if (!j.ok()) return j.status();
  if (j->value("pending", false)) {
    return Status::NotFound(path + ": pending (never recorded): run scripts/record-captures");
  }
  for (const char* key : {"manifest", "program_digest", "main"}) {
    if (!j->contains(key)) return Status::InvalidArgument(path + ": $." + key + ": missing");
  }
  // The stored manifest, as a file for PrepareRun (its .so is not needed: nothing deploys).
  const std::string manifest_path =
      (std::filesystem::temp_directory_path() /
       ("ctte-golden-manifest-" + std::to_string(::getpid()) + "-" +
        std::filesystem::path(path).stem().string() + ".json"))
          .string();
  CTTE_RETURN_IF_ERROR(WriteFileAtomic(manifest_path, (*j)["manifest"].dump(2) + "\n"));
  runner::PlanOptions po = options;
  po.manifest_path = manifest_path;
  Result<runner::PreparedRun> p = runner::PrepareRun(config, po);
  std::filesystem::remove(manifest_path);
  if (!p.ok()) return Status::InvalidArgument(path + ": preparing the run: " + p.status().ToString());
  auto c = std::make_unique<CapturedRun>();
  c->run = std::move(*p);
  const std::string digest = ProgramDigest(*c->run.program);
  if (digest != (*j)["program_digest"].get<std::string>()) {
    return Status::InvalidArgument(
        path + ": the workload " + c->run.workload_path + " is not the program this capture "
        "ran (program digest " + digest + ", recorded " +
        (*j)["program_digest"].get<std::string>() +
        "): record the captures again with scripts/record-captures");
  }
  Result<lab::Capture> main = CaptureFromJson((*j)["main"], "$.main");
  if (!main.ok()) return Status::InvalidArgument(path + ": " + main.status().message());
  c->capture = std::move(*main);
  if (twin) {
    if (!j->contains("twin")) return Status::InvalidArgument(path + ": $.twin: missing");
    Result<lab::Capture> t = CaptureFromJson((*j)["twin"], "$.twin");
    if (!t.ok()) return Status::InvalidArgument(path + ": " + t.status().message());
    c->twin_capture = std::move(*t);
    c->has_twin = true;
  }
  return c;
}

Status WriteCapturedRun(const std::string& path, const CapturedRun& run,
                        uint64_t max_instructions) {
  Result<std::string> manifest_text = ReadFileText(run.run.manifest.manifest_path);
  if (!manifest_text.ok()) return manifest_text.status();
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["config"] = nlohmann::ordered_json::parse(runner::RunConfigToJson(run.run.config));
  j["max_instructions"] = max_instructions;
  j["manifest"] = nlohmann::ordered_json::parse(*manifest_text);
  j["program_digest"] = ProgramDigest(*run.run.program);
  j["main"] = CaptureJson(run.capture);
  if (run.has_twin) j["twin"] = CaptureJson(run.twin_capture);
  return WriteFileAtomic(path, j.dump(2) + "\n");
}

std::string CaptureDifferences(const lab::Capture& golden, const lab::Capture& fresh) {
  const nlohmann::json a = CaptureJson(golden), b = CaptureJson(fresh);
  std::string out;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (it.key() == "bytes_hex") continue;
    if (!b.contains(it.key())) {
      out += it.key() + ": golden " + it.value().dump() + ", fresh has none\n";
    } else if (b[it.key()] != it.value()) {
      out += it.key() + ": golden " + it.value().dump() + ", fresh " + b[it.key()].dump() + "\n";
    }
  }
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!a.contains(it.key())) out += it.key() + ": fresh " + it.value().dump() + ", golden has none\n";
  }
  if (golden.bytes != fresh.bytes) {
    size_t i = 0;
    while (i < golden.bytes.size() && i < fresh.bytes.size() && golden.bytes[i] == fresh.bytes[i]) ++i;
    out += "bytes: " + std::to_string(golden.bytes.size()) + " golden, " +
           std::to_string(fresh.bytes.size()) + " fresh, first difference at byte offset " +
           std::to_string(i) + "\n";
  }
  return out;
}

}  // namespace ctte::testing

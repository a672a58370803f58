// PrepareRun (see plan.h): files, then the board plan, then the reference and the window edges.
#include "runner/plan.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/files.h"
#include "base/random.h"
#include "base/sha256.h"
#include "base/text.h"
#include "oracle/config_message.h"
#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/program_gen.h"
#include "regmap/registers.h"
#include "runner/feature_table.h"
#include "runner/features_axis.h"
#include "runner/reference_cache.h"
#include "runner/workload_xlen.h"

namespace ctte::runner {
namespace {

// True when `path` names an existing file; an error (e.g. permissions) counts as absent.
bool FileExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) && !ec;
}

// `xlen`: the image's; a built-in workload resolves to its build of that width.
Result<std::string> ResolveWorkload(const RunConfig& c, const PlanOptions& o, uint32_t xlen) {
  if (!o.workload_path.empty()) return o.workload_path;
  if (auto it = o.user_workloads.find(c.workload); it != o.user_workloads.end()) {
    return it->second;
  }
  if (c.workload == "random") {
    const std::string dir = o.scratch_dir.empty() ? std::string("/tmp") : o.scratch_dir;
    // A program of the image's width (the RV64 cache name is that of before).
    const std::string path = dir + "/ctte-random-" + oracle::kProgramGenVersion + "-" +
                             SeedHex(c.program_seed) + (xlen == 32 ? "-rv32" : "") + ".elf";
    if (!FileExists(path)) {
      oracle::ProgramGenOptions go;
      go.xlen = xlen == 32 ? oracle::Xlen::k32 : oracle::Xlen::k64;
      const oracle::GeneratedProgram p = oracle::GenerateProgram(c.program_seed, go);
      CTTE_RETURN_IF_ERROR(oracle::WriteElf(path, p.entry, p.segments, p.symbols, p.xlen));
    }
    return path;
  }
  if (c.workload.empty()) return Status::InvalidArgument("config.workload: empty");
  const std::string path = BuiltinWorkloadPath(o.workload_dir, c.workload, xlen);
  if (!FileExists(path)) return Status::NotFound("config.workload: no workload ELF " + path);
  return path;
}

// The optional features of config.features against the image's (section 11 of
// docs/encoder-behaviour.md): a feature the image does not compile is refused, and the
// implicit-return depth is the image's.
Result<oracle::FeatureSet> PlanFeatures(const RunConfig& config, const lab::ImageManifest& m) {
  const uint32_t depth =
      m.return_stack_depth > 0 ? m.return_stack_depth : oracle::kMaxReturnStackDepth;
  Result<oracle::FeatureSet> f = oracle::ParseFeatures(config.features, "config.features", depth);
  if (!f.ok()) return f.status();
  if (f->implicit_return_depth > 0 && f->implicit_return_depth != m.return_stack_depth) {
    return Status::InvalidArgument(
        "config.features: image " + m.name +
        (m.return_stack_depth == 0 ? std::string(" does not compile implicit-return")
                                   : " has a return stack of " +
                                         std::to_string(m.return_stack_depth) + ", not " +
                                         std::to_string(f->implicit_return_depth)));
  }
  CTTE_RETURN_IF_ERROR(CheckFeaturesCompiled(*f, m, "config.features"));
  return f;
}

// The encoder part of the plan; InvalidArgument names the config field.
Status PlanEncoder(const RunConfig& config, lab::EncoderPlan* e) {
  Result<uint8_t> mode = InstModeRegister(config.mode);
  if (!mode.ok()) return mode.status();
  e->mode = *mode;
  e->sync_mode = SyncModeRegister(config.sync_params.kind);
  if (config.sync_params.kind != SyncPolicy::Kind::kOff) {
    if (config.sync_params.period_log2 < 4 || config.sync_params.period_log2 > 19) {
      return Status::InvalidArgument("config.sync: period 2^" +
                                     std::to_string(config.sync_params.period_log2) +
                                     " outside 2^4..2^19");
    }
    e->sync_max = static_cast<uint8_t>(config.sync_params.period_log2 - 4);
  }
  return Status::Ok();
}

}  // namespace

Status WriteReferencePcs(const PreparedRun& run, const std::string& path) {
  oracle::IssOptions o;
  o.max_instructions = run.plan.iss.max_instructions;
  o.interrupt_at = run.plan.iss.interrupt_at;
  o.interrupt_every = run.plan.iss.interrupt_every;
  oracle::Iss iss(*run.program, o);
  std::string text;
  oracle::Retired r;
  while (iss.Step(&r)) {
    if (r.retires) text += HexShort(r.pc) + "\n";
  }
  return WriteFileAtomic(path, text);
}

lab::BackpressureProfile SinkProfile(const Backpressure& bp, uint64_t seed) {
  lab::BackpressureProfile p;
  p.seed = seed;
  switch (bp.kind) {
    case Backpressure::Kind::kNone: p.kind = lab::BackpressureKind::kNone; break;
    case Backpressure::Kind::kUniform:
      p.kind = lab::BackpressureKind::kUniform;
      p.accept_num = bp.ready_percent;
      p.accept_den = 100;
      break;
    case Backpressure::Kind::kBursty:
      p.kind = lab::BackpressureKind::kBursty;
      p.ready_min = p.stall_min = bp.burst_min;
      p.ready_max = p.stall_max = bp.burst_max;
      break;
  }
  return p;
}

Result<uint8_t> InstModeRegister(std::string_view mode) {
  if (mode == "htm" || mode.empty()) return reg::kInstModeHtm;
  if (mode == "btm") return reg::kInstModeBtm;
  return Status::InvalidArgument("config.mode: expected htm or btm, got '" + std::string(mode) +
                                 "'");
}

uint8_t SyncModeRegister(SyncPolicy::Kind kind) {
  switch (kind) {
    case SyncPolicy::Kind::kOff: return reg::kSyncModeOff;
    case SyncPolicy::Kind::kMessages: return reg::kSyncModeMessages;
    case SyncPolicy::Kind::kHalfwords: return reg::kSyncModeHalfwords;
  }
  return reg::kSyncModeOff;
}

Result<PreparedRun> PrepareRun(const RunConfig& config, const PlanOptions& options) {
  PreparedRun r;
  r.config = config;
  const auto pinned_manifest = options.image_manifests.find(config.image);
  const std::string manifest = !options.manifest_path.empty() ? options.manifest_path
                               : pinned_manifest != options.image_manifests.end()
                                   ? pinned_manifest->second
                                   : options.image_dir + "/" + config.image + ".manifest.json";
  Result<lab::ImageManifest> m = lab::ImageManifest::Load(manifest);
  if (!m.ok()) return m.status();
  if (auto want = options.image_sha256.find(config.image);
      want != options.image_sha256.end() && m->sha256 != want->second) {
    return Status::InvalidArgument("image " + config.image + ": the stored run ran SHA-256 " +
                                   want->second + "; " + manifest + " names SHA-256 " +
                                   m->sha256);
  }
  r.manifest = *m;
  Result<std::string> wl = ResolveWorkload(config, options, ImageXlen(r.manifest));
  if (!wl.ok()) return wl.status();
  r.workload_path = *wl;
  CTTE_RETURN_IF_ERROR(CheckWorkloadXlen(r.manifest, config.workload, r.workload_path));
  Result<oracle::ProgramImage> prog = oracle::ProgramImage::Load(r.workload_path);
  if (!prog.ok()) return prog.status();
  Result<std::string> digest = Sha256File(r.workload_path);
  if (!digest.ok()) return Status::IOError(r.workload_path + ": " + digest.status().message());
  r.workload_sha256 = *digest;
  if (config.workload == "random" && options.workload_path.empty()) {
    r.generator_version = oracle::kProgramGenVersion;
  }
  r.program = std::make_unique<oracle::ProgramImage>(std::move(*prog));

  lab::RunPlan& p = r.plan;
  p.workload_elf = r.workload_path;
  CTTE_RETURN_IF_ERROR(PlanEncoder(config, &p.encoder));
  if (options.clamp_features && !config.features.empty()) {
    r.config.features = ClampFeatures(config.features, r.manifest);
  }
  Result<oracle::FeatureSet> features = PlanFeatures(r.config, r.manifest);
  if (!features.ok()) return features.status();
  p.encoder.inst_features |= FeatureEnables(*features);
  p.iss.max_instructions = options.max_instructions;
  p.iss.interrupt_at = config.interrupt_at;
  p.iss.interrupt_every = config.interrupt_every;
  if (config.core_stall_percent >= 100) {
    return Status::InvalidArgument("config.core_stall_percent: must be below 100");
  }
  p.stall.seed = config.stall_seed;
  p.stall.ipc_num = 100 - config.core_stall_percent;
  p.stall.ipc_den = 100;
  p.sink = SinkProfile(config.backpressure_params, config.sink_seed);
  p.ring_bytes = options.ring_bytes;
  p.drain_budget_sink_cycles = options.drain_budget_sink_cycles;
  p.model_seed = DeriveSeed(config.seed, "model");
  p.fst_path = options.fst_path;
  p.stop_at_end = true;

  r.fabric_hz = config.fabric_hz != 0 ? config.fabric_hz
                                      : static_cast<uint64_t>(r.manifest.fmax_mhz * 1e6);
  r.sink_hz = config.sink_hz != 0 ? config.sink_hz : lab::kDefaultSinkHz;

  oracle::ExpectedOptions eo;
  eo.iss.max_instructions = p.iss.max_instructions;
  eo.iss.interrupt_at = p.iss.interrupt_at;
  eo.iss.interrupt_every = p.iss.interrupt_every;
  const bool has_edges = config.window_stop || config.window_start > 0 || config.window_pause ||
                         config.window_resume;
  if (!options.build_reference) {
    if (has_edges) {
      return Status::InvalidArgument("config.window: trace-window edges need the reference");
    }
    return r;
  }
  eo.encoder.mode =
      p.encoder.mode == reg::kInstModeBtm ? oracle::TraceMode::kBtm : oracle::TraceMode::kHtm;
  eo.encoder.sync_mode = p.encoder.sync_mode;
  eo.encoder.sync_max = p.encoder.sync_max;
  eo.encoder.features = *features;
  eo.encoder.xlen = static_cast<uint8_t>(ImageXlen(r.manifest));
  eo.stop_at_end = true;
  if (config.window_pause.has_value() != config.window_resume.has_value()) {
    return Status::InvalidArgument("config.window: pause and resume must be given together");
  }
  if (config.window_start > 0) eo.edges.push_back({config.window_start, true});
  else eo.edges.push_back({0, true});
  if (config.window_pause) {
    if (*config.window_pause < config.window_start || *config.window_resume < *config.window_pause) {
      return Status::InvalidArgument("config.window: need start <= pause <= resume");
    }
    eo.edges.push_back({*config.window_pause, false});
    eo.edges.push_back({*config.window_resume, true});
  }
  // The early-stop budget and the reference run, by content (runner/reference_cache.h).
  ReferenceRequest request;
  request.program_sha256 = r.workload_sha256;
  request.options = eo;
  request.window_stop = config.window_stop;
  const std::shared_ptr<const Reference> ref =
      ProcessReferenceCache().Get(*r.program, request);
  p.iss.max_instructions = ref->max_instructions;
  r.expected = ref->expected;
  r.expected.image = r.program.get();
  const std::vector<uint64_t>& beats = ref->edge_beats;
  if (!(eo.edges.size() == 1 && eo.edges[0].at == 0)) {
    for (size_t i = 0; i < eo.edges.size(); ++i) {
      p.window_edges.push_back(lab::WindowEdge{beats[i], eo.edges[i].open});
    }
  }
  return r;
}

}  // namespace ctte::runner

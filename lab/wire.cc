// JSON codec of the Board types (nlohmann/json adapter: exceptions stay in this file and the
// protocol files).
#include "lab/wire.h"

#include <nlohmann/json.hpp>


namespace ctte::lab::wire {

namespace {
std::string Sub(const std::string& path, const char* key) {
  return path.empty() ? std::string(key) : path + "." + key;
}
const Json* Field(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
Status Missing(const std::string& path, const char* key, bool required) {
  if (!required) return Status::Ok();
  return Status::InvalidArgument(Sub(path, key) + ": missing");
}
}  // namespace

namespace {
// A value of the wrong type as an error shows it: its JSON text (control bytes escaped), cut at
// 64 bytes with its size, so a client's 100 KB value never comes back whole.
std::string Shown(const Json& v) {
  std::string d = v.dump();
  if (d.size() <= 64) return d;
  return d.substr(0, 64) + "... (" + std::to_string(d.size()) + " bytes)";
}
}  // namespace

Status GetU64(const Json& j, const std::string& path, const char* key, uint64_t* out,
              bool required) {
  const Json* f = Field(j, key);
  if (f == nullptr) return Missing(path, key, required);
  if (!f->is_number_unsigned() && !(f->is_number_integer() && f->get<int64_t>() >= 0)) {
    return Status::InvalidArgument(Sub(path, key) + ": expected an unsigned integer, got " +
                                   Shown(*f));
  }
  *out = f->get<uint64_t>();
  return Status::Ok();
}

Status GetU32(const Json& j, const std::string& path, const char* key, uint32_t* out,
              bool required) {
  uint64_t v = *out;
  CTTE_RETURN_IF_ERROR(GetU64(j, path, key, &v, required));
  if (v > 0xFFFFFFFFull) {
    return Status::InvalidArgument(Sub(path, key) + ": " + std::to_string(v) +
                                   " does not fit 32 bits");
  }
  *out = static_cast<uint32_t>(v);
  return Status::Ok();
}

Status GetStr(const Json& j, const std::string& path, const char* key, std::string* out,
              bool required) {
  const Json* f = Field(j, key);
  if (f == nullptr) return Missing(path, key, required);
  if (!f->is_string()) {
    return Status::InvalidArgument(Sub(path, key) + ": expected a string, got " + Shown(*f));
  }
  *out = f->get<std::string>();
  return Status::Ok();
}

Status GetBool(const Json& j, const std::string& path, const char* key, bool* out,
               bool required) {
  const Json* f = Field(j, key);
  if (f == nullptr) return Missing(path, key, required);
  if (!f->is_boolean()) {
    return Status::InvalidArgument(Sub(path, key) + ": expected true/false, got " + Shown(*f));
  }
  *out = f->get<bool>();
  return Status::Ok();
}

namespace {
Status GetU8(const Json& j, const std::string& path, const char* key, uint8_t* out) {
  uint32_t v = *out;
  CTTE_RETURN_IF_ERROR(GetU32(j, path, key, &v, false));
  if (v > 255) return Status::InvalidArgument(Sub(path, key) + ": does not fit 8 bits");
  *out = static_cast<uint8_t>(v);
  return Status::Ok();
}

Status GetU64List(const Json& j, const std::string& path, const char* key,
                  std::vector<uint64_t>* out) {
  const Json* f = Field(j, key);
  if (f == nullptr) return Status::Ok();
  if (!f->is_array()) return Status::InvalidArgument(Sub(path, key) + ": expected an array");
  out->clear();
  for (size_t i = 0; i < f->size(); ++i) {
    const Json& e = (*f)[i];
    if (!e.is_number_unsigned() && !(e.is_number_integer() && e.get<int64_t>() >= 0)) {
      return Status::InvalidArgument(Sub(path, key) + "[" + std::to_string(i) +
                                     "]: expected an unsigned integer");
    }
    out->push_back(e.get<uint64_t>());
  }
  return Status::Ok();
}
}  // namespace

Json ToJson(const BoardIdentity& v) {
  return Json{{"kind", v.kind},           {"serial", v.serial},
              {"version", v.version},     {"capabilities", v.capabilities},
              {"image_name", v.image_name}, {"image_sha256", v.image_sha256},
              {"max_ring_bytes", v.max_ring_bytes}};
}

Status FromJson(const Json& j, const std::string& path, BoardIdentity* out) {
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "kind", &out->kind));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "serial", &out->serial));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "version", &out->version, false));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "image_name", &out->image_name, false));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "image_sha256", &out->image_sha256, false));
  out->max_ring_bytes = 0;  // absent: an older board that does not report it
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "max_ring_bytes", &out->max_ring_bytes, false));
  const Json* caps = Field(j, "capabilities");
  out->capabilities.clear();
  if (caps != nullptr) {
    if (!caps->is_array()) return Status::InvalidArgument(Sub(path, "capabilities") + ": array");
    for (const Json& c : *caps) {
      if (!c.is_string()) {
        return Status::InvalidArgument(Sub(path, "capabilities") + ": expected strings");
      }
      out->capabilities.push_back(c.get<std::string>());
    }
  }
  return Status::Ok();
}

Json ToJson(const DeployReceipt& v) {
  return Json{{"sha256", v.sha256},   {"build_id", Hex64(v.build_id)},
              {"profile", v.profile}, {"caps", v.caps},
              {"stored_path", v.stored_path}, {"size", v.size}};
}

Status FromJson(const Json& j, const std::string& path, DeployReceipt* out) {
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "sha256", &out->sha256));
  std::string bid;
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "build_id", &bid));
  CTTE_ASSIGN_OR_RETURN(out->build_id, ParseHex64(bid, Sub(path, "build_id")));
  CTTE_RETURN_IF_ERROR(GetU32(j, path, "profile", &out->profile, false));
  CTTE_RETURN_IF_ERROR(GetU32(j, path, "caps", &out->caps, false));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "stored_path", &out->stored_path, false));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "size", &out->size, false));
  return Status::Ok();
}

namespace {
// "inst_features" only when a feature is on, so a features-off plan is the JSON it always was.
Json EncoderJson(const EncoderPlan& e) {
  Json j{{"mode", e.mode}, {"sync_mode", e.sync_mode}, {"sync_max", e.sync_max}};
  if (e.inst_features != 0) j["inst_features"] = e.inst_features;
  return j;
}
}  // namespace

Json ToJson(const RunPlan& v) {
  Json edges = Json::array();
  for (const WindowEdge& e : v.window_edges) {
    edges.push_back(Json{{"before_beat", e.before_beat}, {"open", e.open}});
  }
  const BackpressureProfile& s = v.sink;
  return Json{
      {"workload_elf", v.workload_elf},
      {"iss", {{"max_instructions", v.iss.max_instructions},
               {"interrupt_at", v.iss.interrupt_at},
               {"interrupt_every", v.iss.interrupt_every}}},
      {"encoder", EncoderJson(v.encoder)},
      {"window_edges", edges},
      {"stop_at_end", v.stop_at_end},
      {"stall", {{"seed", v.stall.seed}, {"ipc_num", v.stall.ipc_num},
                 {"ipc_den", v.stall.ipc_den}}},
      {"sink", {{"kind", s.kind == BackpressureKind::kNone      ? "none"
                         : s.kind == BackpressureKind::kUniform ? "uniform"
                                                                : "bursty"},
                {"seed", s.seed}, {"accept_num", s.accept_num}, {"accept_den", s.accept_den},
                {"ready_min", s.ready_min}, {"ready_max", s.ready_max},
                {"stall_min", s.stall_min}, {"stall_max", s.stall_max}}},
      {"ring_bytes", v.ring_bytes},
      {"drain_budget_sink_cycles", v.drain_budget_sink_cycles},
      {"model_seed", v.model_seed},
      {"fst_path", v.fst_path}};
}

Status FromJson(const Json& j, const std::string& path, RunPlan* out) {
  if (!j.is_object()) return Status::InvalidArgument(path + ": expected an object");
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "workload_elf", &out->workload_elf));
  if (const Json* iss = Field(j, "iss")) {
    const std::string p = Sub(path, "iss");
    CTTE_RETURN_IF_ERROR(GetU64(*iss, p, "max_instructions", &out->iss.max_instructions, false));
    CTTE_RETURN_IF_ERROR(GetU64List(*iss, p, "interrupt_at", &out->iss.interrupt_at));
    CTTE_RETURN_IF_ERROR(GetU64(*iss, p, "interrupt_every", &out->iss.interrupt_every, false));
  }
  if (const Json* enc = Field(j, "encoder")) {
    const std::string p = Sub(path, "encoder");
    CTTE_RETURN_IF_ERROR(GetU8(*enc, p, "mode", &out->encoder.mode));
    CTTE_RETURN_IF_ERROR(GetU8(*enc, p, "sync_mode", &out->encoder.sync_mode));
    CTTE_RETURN_IF_ERROR(GetU8(*enc, p, "sync_max", &out->encoder.sync_max));
    CTTE_RETURN_IF_ERROR(GetU32(*enc, p, "inst_features", &out->encoder.inst_features, false));
  }
  if (const Json* edges = Field(j, "window_edges")) {
    if (!edges->is_array()) {
      return Status::InvalidArgument(Sub(path, "window_edges") + ": expected an array");
    }
    out->window_edges.clear();
    for (size_t i = 0; i < edges->size(); ++i) {
      const std::string p = Sub(path, "window_edges") + "[" + std::to_string(i) + "]";
      WindowEdge e;
      CTTE_RETURN_IF_ERROR(GetU64((*edges)[i], p, "before_beat", &e.before_beat));
      CTTE_RETURN_IF_ERROR(GetBool((*edges)[i], p, "open", &e.open));
      out->window_edges.push_back(e);
    }
  }
  CTTE_RETURN_IF_ERROR(GetBool(j, path, "stop_at_end", &out->stop_at_end, false));
  if (const Json* st = Field(j, "stall")) {
    const std::string p = Sub(path, "stall");
    CTTE_RETURN_IF_ERROR(GetU64(*st, p, "seed", &out->stall.seed, false));
    CTTE_RETURN_IF_ERROR(GetU32(*st, p, "ipc_num", &out->stall.ipc_num, false));
    CTTE_RETURN_IF_ERROR(GetU32(*st, p, "ipc_den", &out->stall.ipc_den, false));
  }
  if (const Json* sk = Field(j, "sink")) {
    const std::string p = Sub(path, "sink");
    BackpressureProfile& s = out->sink;
    std::string kind = "none";
    CTTE_RETURN_IF_ERROR(GetStr(*sk, p, "kind", &kind, false));
    if (kind == "none") {
      s.kind = BackpressureKind::kNone;
    } else if (kind == "uniform") {
      s.kind = BackpressureKind::kUniform;
    } else if (kind == "bursty") {
      s.kind = BackpressureKind::kBursty;
    } else {
      return Status::InvalidArgument(Sub(p, "kind") + ": unknown '" + kind + "'");
    }
    CTTE_RETURN_IF_ERROR(GetU64(*sk, p, "seed", &s.seed, false));
    CTTE_RETURN_IF_ERROR(GetU32(*sk, p, "accept_num", &s.accept_num, false));
    CTTE_RETURN_IF_ERROR(GetU32(*sk, p, "accept_den", &s.accept_den, false));
    CTTE_RETURN_IF_ERROR(GetU32(*sk, p, "ready_min", &s.ready_min, false));
    CTTE_RETURN_IF_ERROR(GetU32(*sk, p, "ready_max", &s.ready_max, false));
    CTTE_RETURN_IF_ERROR(GetU32(*sk, p, "stall_min", &s.stall_min, false));
    CTTE_RETURN_IF_ERROR(GetU32(*sk, p, "stall_max", &s.stall_max, false));
  }
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "ring_bytes", &out->ring_bytes, false));
  CTTE_RETURN_IF_ERROR(
      GetU64(j, path, "drain_budget_sink_cycles", &out->drain_budget_sink_cycles, false));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "model_seed", &out->model_seed, false));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "fst_path", &out->fst_path, false));
  return Status::Ok();
}

Json ToJson(const Counters& c) {
  return Json{{"messages", c.messages}, {"bytes", c.bytes},
              {"overflow_episodes", c.overflow_episodes}, {"records_dropped", c.records_dropped},
              {"halfwords_retired", c.halfwords_retired}, {"status", c.status},
              {"control", c.control}};
}

Json ToJson(const Capture& v) {
  Json j = Json{{"bytes_received", v.bytes_received},
              {"ring_wrapped", v.ring_wrapped},
              {"counters", ToJson(v.counters)},
              {"te_empty", v.te_empty},
              {"drained", v.drained},
              {"drain_sink_cycles", v.drain_sink_cycles},
              {"fabric_cycles", v.fabric_cycles},
              {"sink_cycles", v.sink_cycles},
              {"sim_time_ps", v.sim_time_ps},
              {"wall_seconds", v.wall_seconds},
              {"beats", v.beats},
              {"retired", v.retired},
              {"core_stop", v.core_stop},
              {"exit_code", v.exit_code},
              {"console", v.console},
              {"fabric_hz", v.fabric_hz},
              {"sink_hz", v.sink_hz}};
  if (v.ready_stall_measured) j["max_ready_stall_sink_cycles"] = v.max_ready_stall_sink_cycles;
  return j;
}

Status FromJson(const Json& j, const std::string& path, Capture* out) {
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "bytes_received", &out->bytes_received));
  CTTE_RETURN_IF_ERROR(GetBool(j, path, "ring_wrapped", &out->ring_wrapped));
  const Json* c = Field(j, "counters");
  if (c == nullptr) return Status::InvalidArgument(Sub(path, "counters") + ": missing");
  const std::string p = Sub(path, "counters");
  Counters& k = out->counters;
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "messages", &k.messages));
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "bytes", &k.bytes));
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "overflow_episodes", &k.overflow_episodes));
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "records_dropped", &k.records_dropped));
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "halfwords_retired", &k.halfwords_retired));
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "status", &k.status));
  CTTE_RETURN_IF_ERROR(GetU32(*c, p, "control", &k.control));
  CTTE_RETURN_IF_ERROR(GetBool(j, path, "te_empty", &out->te_empty));
  CTTE_RETURN_IF_ERROR(GetBool(j, path, "drained", &out->drained));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "drain_sink_cycles", &out->drain_sink_cycles, false));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "fabric_cycles", &out->fabric_cycles));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "sink_cycles", &out->sink_cycles));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "sim_time_ps", &out->sim_time_ps, false));
  if (const Json* w = Field(j, "wall_seconds"); w != nullptr && w->is_number()) {
    out->wall_seconds = w->get<double>();
  }
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "beats", &out->beats, false));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "retired", &out->retired, false));
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "core_stop", &out->core_stop, false));
  if (const Json* e = Field(j, "exit_code"); e != nullptr && e->is_number_integer()) {
    out->exit_code = e->get<int>();
  }
  CTTE_RETURN_IF_ERROR(GetStr(j, path, "console", &out->console, false));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "fabric_hz", &out->fabric_hz, false));
  CTTE_RETURN_IF_ERROR(GetU64(j, path, "sink_hz", &out->sink_hz, false));
  if (Field(j, "max_ready_stall_sink_cycles") != nullptr) {
    CTTE_RETURN_IF_ERROR(GetU64(j, path, "max_ready_stall_sink_cycles",
                                &out->max_ready_stall_sink_cycles));
    out->ready_stall_measured = true;
  }
  return Status::Ok();
}

Json StatusToJson(const Status& s) {
  return Json{{"code", Status::CodeName(s.code())},
              {"kind", FailureKindName(ClassifyFailure(s))},
              {"message", s.message()}};
}

namespace {
Status StatusOfCode(const std::string& code, const std::string& msg) {
  if (code == "NotFound") return Status::NotFound(msg);
  if (code == "Corruption") return Status::Corruption(msg);
  if (code == "IOError") return Status::IOError(msg);
  if (code == "InvalidArgument") return Status::InvalidArgument(msg);
  if (code == "Timeout") return Status::Timeout(msg);
  if (code == "Unavailable") return Status::Unavailable(msg);
  if (code == "Internal") return Status::Internal(msg);
  return Status::Internal(code + ": " + msg);
}
}  // namespace

Status StatusFromJson(const Json& j) {
  std::string code = "Internal", msg = "(no message)", kind = "other";
  if (j.is_object()) {
    if (const Json* c = Field(j, "code"); c != nullptr && c->is_string()) {
      code = c->get<std::string>();
    }
    if (const Json* k = Field(j, "kind"); k != nullptr && k->is_string()) {
      kind = k->get<std::string>();
    }
    if (const Json* m = Field(j, "message"); m != nullptr && m->is_string()) {
      msg = m->get<std::string>();
    }
  }
  return WithFailureKind(StatusOfCode(code, msg), ParseFailureKind(kind));
}

}  // namespace ctte::lab::wire

// BoardWorker (see board_worker.h) and BoardSource::Only.
#include "runner/board_worker.h"

#include <signal.h>

#include <nlohmann/json.hpp>

#include "runner/board_session.h"
#include "runner/run_status.h"

namespace ctte::runner {

BoardSource BoardSource::Only(unsigned slot) const {
  BoardSource one = *this;
  one.names = {Name(slot)};
  if (lab()) {
    one.open = [open = open, slot](unsigned) { return open(slot); };
  } else {
    one.count = 1;
    one.slot_args.clear();
    if (slot < slot_args.size()) one.slot_args.push_back(slot_args[slot]);
    if (TEST_wrap) {
      one.TEST_wrap = [wrap = TEST_wrap, slot](lab::Board* inner, unsigned) {
        return wrap(inner, slot);
      };
    }
  }
  return one;
}

BoardWorker::BoardWorker(const BoardSource& source, unsigned slot, db::Database* db,
                         uint64_t ring_bytes)
    : source_(source), slot_(slot), db_(db), ring_bytes_(ring_bytes), name_(source.Name(slot)) {}

BoardWorker::~BoardWorker() { Close(); }

uint64_t BoardWorker::deploys() const {
  return retired_deploys_ + (board_ ? board_->deploys() : 0);
}

Status BoardWorker::Open() {
  if (source_.lab()) {
    Result<std::unique_ptr<lab::Board>> b = source_.open(slot_);
    if (!b.ok()) return b.status();
    opened_ = std::move(*b);
    board_ = std::make_unique<SoakBoard>(opened_.get());
    return Register();
  }
  lab::RemoteBoardOptions o = source_.child;
  if (slot_ < source_.slot_args.size()) {
    for (const std::string& a : source_.slot_args[slot_]) o.args.push_back(a);
  }
  Result<std::unique_ptr<lab::RemoteBoard>> child = lab::RemoteBoard::Spawn(o);
  if (!child.ok()) return child.status();
  child_ = std::move(*child);
  pid_ = child_->pid();
  lab::Board* inner = child_.get();
  if (source_.TEST_wrap) {
    wrapped_ = source_.TEST_wrap(child_.get(), slot_);
    inner = wrapped_.get();
  }
  board_ = std::make_unique<SoakBoard>(inner);
  return Register();
}

Status BoardWorker::Register() {
  Result<lab::BoardIdentity> id = board_->Identify();
  if (!id.ok()) return id.status();
  identity_ = *id;
  CTTE_RETURN_IF_ERROR(
      CheckRingCapacity(*id, ring_bytes_, "the campaign ($.capture.ring_bytes)"));
  if (db_ != nullptr) {
    nlohmann::ordered_json info{{"name", name_}, {"version", id->version},
                                {"capabilities", id->capabilities}, {"slot", slot_}};
    Result<int64_t> bid = db_->UpsertBoard({id->kind, id->serial, info.dump()});
    if (!bid.ok()) return bid.status();
    board_id_ = *bid;
  }
  return Status::Ok();
}

Status BoardWorker::Reopen() {
  if (source_.lab()) {
    if (board_) retired_deploys_ += board_->deploys();
    board_.reset();
    opened_.reset();  // first: an agent serves one runner at a time
    Status st = Open();
    if (board_ == nullptr) {  // not reopened: a board that answers kBoardDied, never null
      opened_ = lab::RemoteBoard::Connect(-1, source_.child);
      board_ = std::make_unique<SoakBoard>(opened_.get());
    }
    return st;
  }
  if (child_ == nullptr) return Open();
  board_->Forget();
  CTTE_RETURN_IF_ERROR(child_->Respawn());
  pid_ = child_->pid();
  return Register();
}

void BoardWorker::Close() {
  if (child_) (void)child_->Shutdown();
  if (board_) retired_deploys_ += board_->deploys();
  board_.reset();
  wrapped_.reset();
  opened_.reset();
  child_.reset();
  pid_ = -1;
}

void BoardWorker::Kill() {
  const pid_t pid = pid_.load();
  if (pid > 0) ::kill(pid, SIGKILL);
}

Result<unsigned> FindBoardSlot(const BoardSource& source,
                               const std::function<bool(const lab::BoardIdentity&)>& match,
                               const std::string& wanted, const std::string& name_hint,
                               std::optional<unsigned> skip) {
  std::vector<unsigned> order;  // the hinted slot first
  for (unsigned s = 0; s < source.size(); ++s) {
    if (s != skip && source.Name(s) == name_hint) order.push_back(s);
  }
  for (unsigned s = 0; s < source.size(); ++s) {
    if (s != skip && source.Name(s) != name_hint) order.push_back(s);
  }
  std::string seen;
  for (const unsigned slot : order) {
    BoardWorker w(source, slot, nullptr, 0);
    const Status st = w.Open();
    const lab::BoardIdentity id = w.identity();
    w.Close();
    seen += (seen.empty() ? "" : "; ") + source.Name(slot) + ": " +
            (st.ok() ? id.kind + " serial " + id.serial : "cannot open: " + st.ToString());
    if (st.ok() && match(id)) return slot;
  }
  return Status::NotFound("no board " + wanted + " (" + (seen.empty() ? "no other board" : seen) +
                          ")");
}

Result<unsigned> FindBoardSlot(const BoardSource& source, const std::string& kind,
                               const std::string& serial, const std::string& name_hint) {
  return FindBoardSlot(
      source,
      [&](const lab::BoardIdentity& id) { return id.kind == kind && id.serial == serial; },
      "reports " + kind + " serial " + serial, name_hint);
}

BoardSet::BoardSet(const BoardSource& source, const std::string& db_path, uint64_t ring_bytes) {
  for (unsigned slot = 0; slot < source.size(); ++slot) {
    std::unique_ptr<db::Database> db;
    Status st = Status::Ok();
    if (!db_path.empty()) {
      Result<std::unique_ptr<db::Database>> d = db::Database::Open(db_path);
      if (d.ok()) db = std::move(*d); else st = d.status();
    }
    workers_.push_back(std::make_unique<BoardWorker>(source, slot, db.get(), ring_bytes));
    dbs_.push_back(std::move(db));
    db_status_.push_back(st);
  }
}

Result<BoardWorker*> BoardSet::Opened(unsigned slot) {
  if (slot >= workers_.size()) return Status::InvalidArgument("no board slot " + std::to_string(slot));
  CTTE_RETURN_IF_ERROR(db_status_[slot]);
  BoardWorker* w = workers_[slot].get();
  if (!w->is_open()) CTTE_RETURN_IF_ERROR(w->Open());
  return w;
}

void BoardSet::CloseAll() {
  for (auto& w : workers_) w->Close();
}

RunOutcome BoardWorker::Run(const std::function<RunOutcome(SoakBoard&)>& execute,
                            std::vector<RunAttempt>* attempts, const std::string& started_at) {
  if (!board_) {
    if (Status st = Open(); !st.ok()) {
      Close();
      RunOutcome out;
      out.status = RunStatus::kInfra;
      out.cause = InfraCause::kBoardDied;
      out.status_reason = name_ + ": cannot open: " + st.ToString();
      return out;
    }
  }
  board_->BeginRecord();
  RunOutcome out = execute(*board_);
  if (out.status != RunStatus::kInfra || !IsRetryable(out.cause)) return out;
  const int64_t first_board = board_id_;
  Status st = Reopen();
  if (attempts != nullptr) attempts->push_back(AttemptOf(out, first_board, started_at, st.ok()));
  if (!st.ok()) {
    out.status_reason += "; respawn failed: " + st.ToString();
    return out;
  }
  board_->BeginRecord();
  return execute(*board_);
}

}  // namespace ctte::runner

#include "runner/soak_boards.h"

#include "base/text.h"

namespace ctte::runner {
namespace {

std::string DeployKey(const lab::DeployRequest& r) {
  return r.name + "/" + r.expected_sha256 + "/" + std::to_string(r.expected_build_id);
}

}  // namespace

Result<lab::BoardIdentity> SoakBoard::Identify() {
  Result<lab::BoardIdentity> id = inner_->Identify();
  if (id.ok()) record_.identity = *id;
  return id;
}

Result<lab::DeployReceipt> SoakBoard::Deploy(const lab::DeployRequest& request) {
  const std::string key = DeployKey(request);
  auto it = deployed_.find(key);
  // A cached receipt is only good while the board still holds that image.
  if (it != deployed_.end() && !request.expected_sha256.empty()) {
    Result<lab::BoardIdentity> id = inner_->Identify();
    if (id.ok() && id->image_sha256 == it->second.sha256) {
      record_.receipt = it->second;
      loaded_image_ = request.name;
      return it->second;
    }
    deployed_.erase(it);
  }
  Result<lab::DeployReceipt> receipt = inner_->Deploy(request);
  if (!receipt.ok()) return receipt;
  if (receipt->skipped) {
    ++skipped_deploys_;  // the agent's board held this image already (lab/board_server.h)
  } else {
    ++deploys_;
  }
  deployed_[key] = *receipt;
  loaded_image_ = request.name;
  record_.receipt = *receipt;
  return receipt;
}

Result<uint64_t> SoakBoard::SetClock(lab::ClockDomain domain, uint64_t hz) {
  Result<uint64_t> r = inner_->SetClock(domain, hz);
  if (r.ok()) record_.programmed[domain] = *r;
  return r;
}

Result<uint64_t> SoakBoard::ReadClock(lab::ClockDomain domain) {
  Result<uint64_t> r = inner_->ReadClock(domain);
  if (r.ok()) record_.read_back[domain] = *r;
  return r;
}

Result<uint32_t> SoakBoard::ReadReg(uint32_t offset) {
  Result<uint32_t> v = inner_->ReadReg(offset);
  if (v.ok()) record_.registers[offset] = *v;
  return v;
}

Result<lab::Capture> SoakBoard::Run(const lab::RunPlan& plan) {
  Result<lab::Capture> c = inner_->Run(plan);
  if (c.ok()) {
    record_.capture = *c;
    record_ok_ = true;
  }
  return c;
}

void SoakBoard::Forget() {
  deployed_.clear();
  loaded_image_.clear();
  BeginRecord();
}

std::optional<BoardRunRecord> SoakBoard::TakeRecord() {
  if (!record_ok_) return std::nullopt;
  record_ok_ = false;
  return std::move(record_);
}

Result<lab::DeployReceipt> PlaybackBoard::Deploy(const lab::DeployRequest& request) {
  if (!request.expected_sha256.empty() && request.expected_sha256 != r_.receipt.sha256) {
    return Status::InvalidArgument("playback board: recorded image " + r_.receipt.sha256 +
                                   ", requested " + request.expected_sha256);
  }
  return r_.receipt;
}

Result<uint64_t> PlaybackBoard::SetClock(lab::ClockDomain domain, uint64_t) {
  auto it = r_.programmed.find(domain);
  if (it == r_.programmed.end()) {
    return Status::NotFound(std::string("playback board: no recorded ") +
                            lab::ClockDomainName(domain) + " clock");
  }
  return it->second;
}

Result<uint64_t> PlaybackBoard::ReadClock(lab::ClockDomain domain) {
  auto it = r_.read_back.find(domain);
  if (it == r_.read_back.end()) {
    return Status::NotFound(std::string("playback board: no recorded ") +
                            lab::ClockDomainName(domain) + " clock read-back");
  }
  return it->second;
}

Result<uint32_t> PlaybackBoard::ReadReg(uint32_t offset) {
  auto it = r_.registers.find(offset);
  if (it == r_.registers.end()) {
    return Status::NotFound("playback board: the recorded run read no register at " +
                            HexShort(offset));
  }
  return it->second;
}

Result<lab::Capture> PlaybackBoard::Run(const lab::RunPlan&) { return r_.capture; }

}  // namespace ctte::runner

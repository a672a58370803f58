// Status and Result<T>: how harness failures travel (house style 12).
//
// A DUT mismatch is a *result* (a verdict), never a Status. A Status says the harness itself could
// not do what it was asked: a file is missing, an input is malformed, a board did not answer.
// Exceptions from third-party libraries (json, SQLite, Asio) are converted at their adapter.
//
// A Status may carry a *detail*: a small integer that says, for a caller that must act on it,
// which failure this was (lab's FailureKind: an RTL assertion, a board death, ...). Control flow
// reads the detail, never the message text. A detail belongs to a domain, a string with static
// storage named by the module that defines the values ("lab.failure"); base/ defines none.
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <variant>

#include "base/check.h"

namespace ctte {

class Status {
 public:
  enum class Code { kOk = 0, kNotFound, kCorruption, kIOError, kInvalidArgument, kTimeout,
                    kUnavailable, kInternal };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status Timeout(std::string msg) { return Status(Code::kTimeout, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return msg_; }
  /// "InvalidArgument: campaign.axes.workload: empty axis".
  std::string ToString() const;
  static const char* CodeName(Code code);

  /// This status with detail `value` of `domain` (a string with static storage). Not for OK.
  Status WithDetail(const char* domain, int value) const& {
    return Status(*this).WithDetail(domain, value);
  }
  Status WithDetail(const char* domain, int value) && {
    CTTE_CHECK(!ok() && domain != nullptr, "a detail needs a failed status and a domain");
    detail_domain_ = domain;
    detail_ = value;
    return std::move(*this);
  }
  /// The detail of `domain`, 0 when the status carries none of that domain.
  int detail(const char* domain) const {
    return detail_domain_ != nullptr && std::strcmp(detail_domain_, domain) == 0 ? detail_ : 0;
  }

 private:
  Status(Code code, std::string msg) : code_(code), msg_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string msg_;
  const char* detail_domain_ = nullptr;
  int detail_ = 0;
};

/// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT(google-explicit-constructor)
  /// `status` must not be OK (a Result is either a value or the reason there is none).
  Result(Status status) : v_(std::move(status)) {        // NOLINT(google-explicit-constructor)
    CTTE_CHECK(!std::get<Status>(v_).ok(), "Result constructed from an OK Status");
  }
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ctte

#define CTTE_RETURN_IF_ERROR(expr)          \
  do {                                      \
    ::ctte::Status ctte_status_ = (expr);   \
    if (!ctte_status_.ok()) return ctte_status_; \
  } while (0)

/// `CTTE_ASSIGN_OR_RETURN(auto x, f());` or `CTTE_ASSIGN_OR_RETURN(y, f());`: evaluates the
/// Result `f()`; returns its Status from the enclosing function when it failed, else moves the
/// value into the left-hand side. One use per line.
#define CTTE_ASSIGN_OR_RETURN(lhs, ...) \
  CTTE_ASSIGN_OR_RETURN_IMPL_(CTTE_STATUS_CONCAT_(ctte_result_, __LINE__), lhs, __VA_ARGS__)
#define CTTE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, ...) \
  auto tmp = (__VA_ARGS__);                        \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
#define CTTE_STATUS_CONCAT_(a, b) CTTE_STATUS_CONCAT_INNER_(a, b)
#define CTTE_STATUS_CONCAT_INNER_(a, b) a##b

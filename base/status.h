// Status and Result<T>: how harness failures travel (house style 12).
//
// A DUT mismatch is a *result* (a verdict), never a Status. A Status says the harness itself could
// not do what it was asked: a file is missing, an input is malformed, a board did not answer.
// Exceptions from third-party libraries (json, SQLite, Asio) are converted at their adapter.
#pragma once

#include <string>
#include <utility>
#include <variant>

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

 private:
  Status(Code code, std::string msg) : code_(code), msg_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string msg_;
};

/// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}      // NOLINT(google-explicit-constructor)
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

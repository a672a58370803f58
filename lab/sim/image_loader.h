// A loaded encoder image: the dlopen() handle of an image .so and its function table
// (rtl/ctte_image_abi.h). The only place the lab touches dlopen.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "rtl/ctte_image_abi.h"

namespace ctte::lab {

class LoadedImage {
 public:
  /// dlopen()s `path`, finds ctte_image_get, checks the ABI version and that every entry exists.
  static Result<std::unique_ptr<LoadedImage>> Open(const std::string& path);
  ~LoadedImage();
  LoadedImage(const LoadedImage&) = delete;
  LoadedImage& operator=(const LoadedImage&) = delete;

  const ctte_image_table& table() const { return *table_; }
  const std::string& path() const { return path_; }

 private:
  LoadedImage() = default;
  void* handle_ = nullptr;
  const ctte_image_table* table_ = nullptr;
  std::string path_;
};

}  // namespace ctte::lab

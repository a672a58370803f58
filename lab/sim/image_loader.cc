#include "lab/sim/image_loader.h"

#include <dlfcn.h>

namespace ctte::lab {

Result<std::unique_ptr<LoadedImage>> LoadedImage::Open(const std::string& path) {
  std::unique_ptr<LoadedImage> img(new LoadedImage());
  img->path_ = path;
  img->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (img->handle_ == nullptr) {
    const char* e = ::dlerror();
    return Status::InvalidArgument("image " + path + ": dlopen failed: " + (e ? e : "?"));
  }
  using GetFn = const ctte_image_table* (*)();
  auto get = reinterpret_cast<GetFn>(::dlsym(img->handle_, "ctte_image_get"));
  if (get == nullptr) {
    return Status::InvalidArgument("image " + path + ": no ctte_image_get symbol");
  }
  img->table_ = get();
  const ctte_image_table* t = img->table_;
  if (t == nullptr) return Status::InvalidArgument("image " + path + ": null function table");
  if (t->abi_version != CTTE_IMAGE_ABI_VERSION) {
    return Status::InvalidArgument("image " + path + ": ABI version " +
                                   std::to_string(t->abi_version) + ", board expects " +
                                   std::to_string(CTTE_IMAGE_ABI_VERSION));
  }
  if (!t->create || !t->destroy || !t->set_reset_n || !t->set_ingress || !t->set_sink_ready ||
      !t->set_reg_bus || !t->eval || !t->sink_valid || !t->sink_data || !t->reg_rdata ||
      !t->failed || !t->failure_message || !t->trace_open || !t->trace_close ||
      !t->run_fabric_cycles) {
    return Status::InvalidArgument("image " + path + ": function table has a null entry");
  }
  return img;
}

LoadedImage::~LoadedImage() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

}  // namespace ctte::lab

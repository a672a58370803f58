#include "base/sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <memory>
#include <vector>

namespace ctte {
namespace {

std::string ToHex(const unsigned char* d, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[d[i] >> 4];
    out[2 * i + 1] = kDigits[d[i] & 15];
  }
  return out;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

}  // namespace

std::string Sha256Hex(std::span<const uint8_t> data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return ToHex(md, len);
}

std::string Sha256Hex(std::string_view data) {
  return Sha256Hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()),
                                            data.size()));
}

Result<std::string> Sha256File(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status::NotFound(path + ": cannot open for hashing");
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<unsigned char> buf(1 << 16);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) {
    EVP_DigestUpdate(ctx.get(), buf.data(), n);
  }
  if (std::ferror(f.get())) return Status::IOError(path + ": read error while hashing");
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  return ToHex(md, len);
}

std::string HmacSha256Hex(std::string_view key, std::span<const uint8_t> data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(), md,
       &len);
  return ToHex(md, len);
}

}  // namespace ctte

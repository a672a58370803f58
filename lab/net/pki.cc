#include "lab/net/pki.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ctte::lab::net {
namespace {

constexpr long kValiditySeconds = 10L * 365 * 24 * 3600;

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Free>;
using CertPtr = std::unique_ptr<X509, Free>;
using BioPtr = std::unique_ptr<BIO, Free>;

std::string OpenSslError(const std::string& what) {
  std::string s = what;
  unsigned long e = 0;
  while ((e = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    s += std::string(": ") + buf;
  }
  return s;
}

bool Exists(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0;
}

Status MakeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::IOError("mkdir " + dir + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

// Writes `pem` to a new file (O_EXCL: never overwrites) with `mode`.
Status WriteNew(const std::string& path, const std::string& pem, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Status::IOError("create " + path + ": " + std::strerror(errno));
  if (::fchmod(fd, mode) != 0) {
    ::close(fd);
    return Status::IOError("chmod " + path + ": " + std::strerror(errno));
  }
  size_t done = 0;
  while (done < pem.size()) {
    const ssize_t n = ::write(fd, pem.data() + done, pem.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return Status::IOError("write " + path + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return Status::IOError("close " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

Result<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Status::Internal(OpenSslError("PEM_write_bio_PrivateKey"));
  }
  return BioText(bio.get());
}

Result<std::string> CertPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return Status::Internal(OpenSslError("PEM_write_bio_X509"));
  }
  return BioText(bio.get());
}

Result<KeyPtr> NewKey() {
  KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return Status::Internal(OpenSslError("EC P-256 key generation"));
  return key;
}

Status AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return Status::Internal(OpenSslError(std::string("extension ") + value));
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return Status::Internal(OpenSslError("X509_add_ext"));
  return Status::Ok();
}

// A v3 certificate for `cn` with `key`'s public key, issued by issuer (nullptr: self-signed),
// signed with issuer_key.
Result<CertPtr> MakeCert(const std::string& cn, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key,
                         bool ca) {
  CertPtr cert(X509_new());
  if (!cert) return Status::Internal(OpenSslError("X509_new"));
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return Status::Internal(OpenSslError("RAND_bytes"));
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  ASN1_INTEGER* sn = bn != nullptr ? BN_to_ASN1_INTEGER(bn, nullptr) : nullptr;
  BN_free(bn);
  if (sn == nullptr) return Status::Internal(OpenSslError("serial"));
  const bool ok = X509_set_version(cert.get(), 2) == 1 && X509_set_serialNumber(cert.get(), sn) == 1 &&
                  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr &&
                  X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds) != nullptr &&
                  X509_set_pubkey(cert.get(), key) == 1;
  ASN1_INTEGER_free(sn);
  if (!ok) return Status::Internal(OpenSslError("certificate fields"));
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>("CTTE Lab"), -1, -1, 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) != 1) {
    return Status::Internal(OpenSslError("subject name"));
  }
  X509* iss = issuer != nullptr ? issuer : cert.get();
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(iss)) != 1) {
    return Status::Internal(OpenSslError("issuer name"));
  }
  if (ca) {
    CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
    CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_key_usage, "critical,keyCertSign,cRLSign"));
  } else {
    CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_basic_constraints, "critical,CA:FALSE"));
    CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_key_usage, "critical,digitalSignature"));
    CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_ext_key_usage, "serverAuth,clientAuth"));
    CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_subject_alt_name, ("DNS:" + cn).c_str()));
  }
  CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_subject_key_identifier, "hash"));
  if (!ca) CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_authority_key_identifier, "keyid:always"));
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) {
    return Status::Internal(OpenSslError("X509_sign"));
  }
  return cert;
}

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 63) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return name.front() != '-' && name.front() != '.';
}

Status WritePair(const std::string& key_path, EVP_PKEY* key, const std::string& cert_path, X509* cert) {
  for (const std::string& p : {key_path, cert_path}) {
    if (Exists(p)) return Status::InvalidArgument(p + " exists; refusing to overwrite it");
  }
  CTTE_ASSIGN_OR_RETURN(const std::string kp, KeyPem(key));
  CTTE_ASSIGN_OR_RETURN(const std::string cp, CertPem(cert));
  CTTE_RETURN_IF_ERROR(WriteNew(key_path, kp, 0600));
  return WriteNew(cert_path, cp, 0644);
}

}  // namespace

Status InitCa(const std::string& dir) {
  CTTE_RETURN_IF_ERROR(MakeDir(dir));
  CTTE_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  CTTE_ASSIGN_OR_RETURN(CertPtr cert, MakeCert("CTTE Lab CA", key.get(), nullptr, key.get(), true));
  return WritePair(dir + "/ca.key", key.get(), dir + "/ca.crt", cert.get());
}

Status IssueCertificate(const std::string& name, const std::string& ca_dir,
                        const std::string& out_dir) {
  if (!ValidName(name)) {
    return Status::InvalidArgument("certificate name '" + name +
                                   "': use 1..63 letters, digits, '-' and '.'");
  }
  const std::string ca_key_path = ca_dir + "/ca.key", ca_cert_path = ca_dir + "/ca.crt";
  BioPtr kb(BIO_new_file(ca_key_path.c_str(), "r"));
  KeyPtr ca_key(kb ? PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!ca_key) return Status::NotFound(OpenSslError("CA key " + ca_key_path));
  BioPtr cb(BIO_new_file(ca_cert_path.c_str(), "r"));
  CertPtr ca_cert(cb ? PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!ca_cert) return Status::NotFound(OpenSslError("CA certificate " + ca_cert_path));
  CTTE_RETURN_IF_ERROR(MakeDir(out_dir));
  CTTE_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  CTTE_ASSIGN_OR_RETURN(CertPtr cert, MakeCert(name, key.get(), ca_cert.get(), ca_key.get(), false));
  return WritePair(out_dir + "/" + name + ".key", key.get(), out_dir + "/" + name + ".crt", cert.get());
}

TlsFiles IssuedFiles(const std::string& name, const std::string& ca_dir, const std::string& out_dir) {
  return TlsFiles{out_dir + "/" + name + ".crt", out_dir + "/" + name + ".key", ca_dir + "/ca.crt"};
}

}  // namespace ctte::lab::net

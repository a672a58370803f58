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

constexpr long kDaySeconds = 24L * 3600;
constexpr long kCaValiditySeconds = 10L * 365 * kDaySeconds;

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_CRL* p) const { X509_CRL_free(p); }
  void operator()(ASN1_TIME* p) const { ASN1_TIME_free(p); }
};
using CrlPtr = std::unique_ptr<X509_CRL, Free>;
using TimePtr = std::unique_ptr<ASN1_TIME, Free>;
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
// signed with issuer_key. `role` is the leaf's extended key usage (ignored for the CA).
Result<CertPtr> MakeCert(const std::string& cn, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key,
                         bool ca, Role role, long not_before_s, long not_after_s,
                         const std::string& eku_override = "") {
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
                  X509_gmtime_adj(X509_getm_notBefore(cert.get()), not_before_s) != nullptr &&
                  X509_gmtime_adj(X509_getm_notAfter(cert.get()), not_after_s) != nullptr &&
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
    const std::string eku = !eku_override.empty() ? eku_override
                            : role == Role::kRunner ? "clientAuth"
                                                    : "serverAuth";
    if (eku != "-") CTTE_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_ext_key_usage, eku.c_str()));
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

struct Ca {
  KeyPtr key;
  CertPtr cert;
};

Result<Ca> LoadCa(const std::string& ca_dir) {
  const std::string ca_key_path = ca_dir + "/ca.key", ca_cert_path = ca_dir + "/ca.crt";
  Ca ca;
  BioPtr kb(BIO_new_file(ca_key_path.c_str(), "r"));
  ca.key.reset(kb ? PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!ca.key) return Status::NotFound(OpenSslError("CA key " + ca_key_path));
  BioPtr cb(BIO_new_file(ca_cert_path.c_str(), "r"));
  ca.cert.reset(cb ? PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!ca.cert) return Status::NotFound(OpenSslError("CA certificate " + ca_cert_path));
  return ca;
}

// Replaces `path` with `text` (a temporary file renamed over it).
Status ReplaceFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  CTTE_RETURN_IF_ERROR(WriteNew(tmp, text, 0644));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::IOError("rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

// Signs `crl` (this update now, next update in kMaxCertificateDays) and writes it to path.
Status SignAndWriteCrl(X509_CRL* crl, const Ca& ca, const std::string& path) {
  TimePtr now(X509_gmtime_adj(nullptr, 0));
  TimePtr next(X509_gmtime_adj(nullptr, kMaxCertificateDays * kDaySeconds));
  if (!now || !next || X509_CRL_set_version(crl, 1) != 1 ||
      X509_CRL_set_issuer_name(crl, X509_get_subject_name(ca.cert.get())) != 1 ||
      X509_CRL_set1_lastUpdate(crl, now.get()) != 1 || X509_CRL_set1_nextUpdate(crl, next.get()) != 1 ||
      X509_CRL_sort(crl) != 1 || X509_CRL_sign(crl, ca.key.get(), EVP_sha256()) == 0) {
    return Status::Internal(OpenSslError("revocation list " + path));
  }
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509_CRL(bio.get(), crl) != 1) {
    return Status::Internal(OpenSslError("PEM_write_bio_X509_CRL"));
  }
  return ReplaceFile(path, BioText(bio.get()));
}

}  // namespace

Result<Role> ParseRole(const std::string& text) {
  if (text == "runner") return Role::kRunner;
  if (text == "board") return Role::kBoard;
  return Status::InvalidArgument("role '" + text + "': expected runner or board");
}

Status InitCa(const std::string& dir) {
  CTTE_RETURN_IF_ERROR(MakeDir(dir));
  CTTE_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  CTTE_ASSIGN_OR_RETURN(CertPtr cert, MakeCert("CTTE Lab CA", key.get(), nullptr, key.get(), true,
                                               Role::kBoard, -3600, kCaValiditySeconds));
  CTTE_RETURN_IF_ERROR(WritePair(dir + "/ca.key", key.get(), dir + "/ca.crt", cert.get()));
  const Ca ca{std::move(key), std::move(cert)};
  CrlPtr crl(X509_CRL_new());
  if (!crl) return Status::Internal(OpenSslError("X509_CRL_new"));
  return SignAndWriteCrl(crl.get(), ca, dir + "/crl.pem");
}

Status IssueCertificate(const std::string& name, const std::string& ca_dir,
                        const std::string& out_dir, const IssueOptions& options) {
  if (!ValidName(name)) {
    return Status::InvalidArgument("certificate name '" + name +
                                   "': use 1..63 letters, digits, '-' and '.'");
  }
  if (options.days < 1 || options.days > kMaxCertificateDays) {
    return Status::InvalidArgument("certificate validity " + std::to_string(options.days) +
                                   " days: expected 1.." + std::to_string(kMaxCertificateDays));
  }
  CTTE_ASSIGN_OR_RETURN(const Ca ca, LoadCa(ca_dir));
  CTTE_RETURN_IF_ERROR(MakeDir(out_dir));
  CTTE_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  const long shift = static_cast<long>(options.TEST_backdate_days) * kDaySeconds;
  CTTE_ASSIGN_OR_RETURN(CertPtr cert, MakeCert(name, key.get(), ca.cert.get(), ca.key.get(), false,
                                               options.role, -3600 - shift,
                                               options.days * kDaySeconds - shift,
                                               options.TEST_extended_key_usage));
  return WritePair(out_dir + "/" + name + ".key", key.get(), out_dir + "/" + name + ".crt", cert.get());
}

Status RevokeCertificate(const std::string& name, const std::string& ca_dir,
                         const std::string& cert_dir) {
  if (!ValidName(name)) return Status::InvalidArgument("certificate name '" + name + "': not a name");
  CTTE_ASSIGN_OR_RETURN(const Ca ca, LoadCa(ca_dir));
  const std::string cert_path = cert_dir + "/" + name + ".crt";
  BioPtr cb(BIO_new_file(cert_path.c_str(), "r"));
  CertPtr cert(cb ? PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) return Status::NotFound(OpenSslError("certificate " + cert_path));
  if (X509_check_issued(ca.cert.get(), cert.get()) != X509_V_OK) {
    return Status::InvalidArgument("certificate " + cert_path + " was not issued by the CA in " +
                                   ca_dir);
  }
  const std::string crl_path = ca_dir + "/crl.pem";
  CrlPtr crl;
  if (Exists(crl_path)) {
    BioPtr rb(BIO_new_file(crl_path.c_str(), "r"));
    crl.reset(rb ? PEM_read_bio_X509_CRL(rb.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!crl) return Status::Corruption(OpenSslError("revocation list " + crl_path));
  } else {
    crl.reset(X509_CRL_new());
    if (!crl) return Status::Internal(OpenSslError("X509_CRL_new"));
  }
  X509_REVOKED* already = nullptr;
  if (X509_CRL_get0_by_serial(crl.get(), &already, X509_get_serialNumber(cert.get())) == 1) {
    return Status::Ok();
  }
  X509_REVOKED* r = X509_REVOKED_new();
  TimePtr now(X509_gmtime_adj(nullptr, 0));
  if (r == nullptr || !now || X509_REVOKED_set_serialNumber(r, X509_get_serialNumber(cert.get())) != 1 ||
      X509_REVOKED_set_revocationDate(r, now.get()) != 1 || X509_CRL_add0_revoked(crl.get(), r) != 1) {
    X509_REVOKED_free(r);
    return Status::Internal(OpenSslError("revoked entry"));
  }
  return SignAndWriteCrl(crl.get(), ca, crl_path);
}

TlsFiles IssuedFiles(const std::string& name, const std::string& ca_dir, const std::string& out_dir) {
  return TlsFiles{out_dir + "/" + name + ".crt", out_dir + "/" + name + ".key", ca_dir + "/ca.crt", ""};
}

}  // namespace ctte::lab::net

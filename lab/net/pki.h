// The lab's certificates (docs/lab.md): a lab CA, and a key + certificate per board agent and
// per runner, all made with the OpenSSL 3 API (EC P-256 keys, X.509 v3, SHA-256 signatures).
// Files are PEM; keys are written 0600; an existing file is never overwritten.
#pragma once

#include <string>

#include "base/status.h"

namespace ctte::lab::net {

/// Paths of one party's TLS files.
struct TlsFiles {
  std::string cert;  ///< PEM certificate of this party
  std::string key;   ///< PEM private key of this party (refused when group or world can read it)
  std::string ca;    ///< PEM certificate of the lab CA (peers must chain to it)
  /// PEM revocation list of the lab CA. "": crl.pem beside `ca` when that file exists (lab
  /// init-ca writes one; lab revoke rewrites it). When a CRL is loaded, every peer is checked
  /// against it (X509_V_FLAG_CRL_CHECK).
  std::string crl;
};

/// What a certificate may do, as its extended key usage says (OpenSSL checks it in the handshake).
enum class Role {
  kRunner,  ///< clientAuth only: drives agents, cannot serve as one
  kBoard,   ///< serverAuth only: serves as an agent, cannot drive one
};

/// "runner" / "board" -> Role; InvalidArgument otherwise.
Result<Role> ParseRole(const std::string& text);

inline constexpr int kMaxCertificateDays = 3650;

struct IssueOptions {
  Role role = Role::kRunner;
  int days = 365;  ///< validity, 1..kMaxCertificateDays

  // Extra fields (for testing)
  /// Moves the validity window this many days into the past (an expired certificate).
  int TEST_backdate_days = 0;
  /// Set: the extended key usage written instead of the role's (OpenSSL's text, e.g.
  /// "emailProtection"); "-": none at all. A lab CA never issues these; the hostile suite does.
  std::string TEST_extended_key_usage{};
};

/// Creates DIR (if missing) with ca.key (0600), ca.crt (a self-signed CA "CTTE Lab CA") and
/// crl.pem (an empty revocation list). InvalidArgument when ca.key or ca.crt exists.
Status InitCa(const std::string& dir);

/// Issues NAME.key (0600) and NAME.crt in out_dir, signed by the CA in ca_dir: CN=NAME,
/// subjectAltName DNS:NAME, extended key usage by role (runner: clientAuth, board:
/// serverAuth), valid for options.days. Refuses to overwrite.
Status IssueCertificate(const std::string& name, const std::string& ca_dir,
                        const std::string& out_dir, const IssueOptions& options);

/// Adds the serial of cert_dir/NAME.crt to ca_dir/crl.pem (created when missing) and signs the
/// list again with the CA key (next update in kMaxCertificateDays). The certificate must have been
/// issued by that CA. Revoking a revoked certificate is Ok (no change).
Status RevokeCertificate(const std::string& name, const std::string& ca_dir,
                         const std::string& cert_dir);

/// The files IssueCertificate wrote for NAME in out_dir (with the CA of ca_dir).
TlsFiles IssuedFiles(const std::string& name, const std::string& ca_dir, const std::string& out_dir);

}  // namespace ctte::lab::net

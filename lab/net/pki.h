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
  std::string key;   ///< PEM private key of this party
  std::string ca;    ///< PEM certificate of the lab CA (peers must chain to it)
};

/// Creates DIR (if missing) with ca.key (0600) and ca.crt: a self-signed CA "CTTE Lab CA".
/// AlreadyExists-like InvalidArgument when either file exists.
Status InitCa(const std::string& dir);

/// Issues NAME.key (0600) and NAME.crt in out_dir, signed by the CA in ca_dir: CN=NAME,
/// subjectAltName DNS:NAME, usable as TLS server and client. Refuses to overwrite.
Status IssueCertificate(const std::string& name, const std::string& ca_dir,
                        const std::string& out_dir);

/// The files IssueCertificate wrote for NAME in out_dir (with the CA of ca_dir).
TlsFiles IssuedFiles(const std::string& name, const std::string& ca_dir, const std::string& out_dir);

}  // namespace ctte::lab::net

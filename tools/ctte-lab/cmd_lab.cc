// `ctte-lab lab init-ca DIR` and `ctte-lab lab issue NAME --ca DIR [--out DIR]`: the lab's
// certificates (lab/net/pki.h, docs/lab.md). Keys are written 0600; existing files are never
// overwritten.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "lab/net/pki.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

struct LabFlags {
  std::string ca_dir;
  std::string name;
  std::string issue_ca;
  std::string out;
};

int Report(const char* what, const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "ctte-lab lab %s: %s\n", what, s.ToString().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

const Registrar kRegistrar{Command{
    "lab", "Lab certificates: `lab init-ca DIR`, `lab issue NAME --ca DIR [--out DIR]`", 42,
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<LabFlags>();
      sub.require_subcommand(1);
      CLI::App* init = sub.add_subcommand("init-ca", "Create the lab CA (ca.key, ca.crt) in DIR");
      init->add_option("DIR", f->ca_dir, "directory for the CA")->required();
      CLI::App* issue = sub.add_subcommand(
          "issue", "Issue NAME.key and NAME.crt (CN and DNS subjectAltName NAME) from the lab CA");
      issue->add_option("NAME", f->name, "board or runner name")->required();
      issue->add_option("--ca", f->issue_ca, "the CA directory (from init-ca)")->required();
      issue->add_option("--out", f->out, "output directory (default: the CA directory)");
      return [f, init, issue]() -> int {
        if (init->parsed()) {
          const int rc = Report("init-ca", lab::net::InitCa(f->ca_dir));
          if (rc == kExitOk) std::printf("wrote %s/ca.key (0600) and %s/ca.crt\n", f->ca_dir.c_str(), f->ca_dir.c_str());
          return rc;
        }
        if (issue->parsed()) {
          const std::string out = f->out.empty() ? f->issue_ca : f->out;
          const int rc = Report("issue", lab::net::IssueCertificate(f->name, f->issue_ca, out));
          if (rc == kExitOk) {
            std::printf("wrote %s/%s.key (0600) and %s/%s.crt\n", out.c_str(), f->name.c_str(),
                        out.c_str(), f->name.c_str());
          }
          return rc;
        }
        return kExitUsage;
      };
    }}};

}  // namespace
}  // namespace ctte::cli

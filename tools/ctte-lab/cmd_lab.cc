// `ctte-lab lab init-ca DIR`, `ctte-lab lab issue NAME --role runner|board --ca DIR [--days N]
// [--out DIR]` and `ctte-lab lab revoke NAME --ca DIR [--out DIR]`: the lab's certificates and
// revocation list (lab/net/pki.h, docs/lab.md). Keys are written 0600; existing key and
// certificate files are never overwritten. `lab usb` and `lab power-cycle BOARD`: USB devices and hub port power
// (tools/ctte-lab/lab_usb.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "lab/net/pki.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/lab_usb.h"

namespace ctte::cli {
namespace {

struct LabFlags {
  std::string ca_dir;
  std::string name;
  std::string issue_ca;
  std::string out;
  std::string role;
  int days = 365;
};

int Report(const char* what, const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "ctte-lab lab %s: %s\n", what, s.ToString().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

Command LabCommand() {
  return Command{
    "lab", "Lab certificates (`lab init-ca DIR`, `lab issue NAME --role R --ca DIR`, `lab revoke NAME --ca DIR`) and USB (`lab usb`, `lab power-cycle BOARD`)",
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
      issue->add_option("--role", f->role,
                        "runner (clientAuth: drives agents) or board (serverAuth: serves as one)")
          ->required()
          ->check(CLI::IsMember({"runner", "board"}));
      issue->add_option("--days", f->days, "validity in days (1..3650, default 365)")
          ->check(CLI::Range(1, lab::net::kMaxCertificateDays));
      CLI::App* revoke = sub.add_subcommand(
          "revoke", "Add NAME.crt to the CA's revocation list (DIR/crl.pem) and sign it again");
      revoke->add_option("NAME", f->name, "board or runner name")->required();
      revoke->add_option("--ca", f->issue_ca, "the CA directory (from init-ca)")->required();
      revoke->add_option("--out", f->out, "where NAME.crt is (default: the CA directory)");
      auto u = std::make_shared<LabUsbFlags>();
      CLI::App* usb = sub.add_subcommand(
          "usb", "List USB devices (vendor, product, serial, port path); mark the inventory's boards");
      usb->add_option("--lab", u->lab_file, "lab inventory (lab.json): mark its boards by usb.serial");
      usb->add_flag("--json", u->json, "print the devices as JSON");
      CLI::App* cycle = sub.add_subcommand(
          "power-cycle", "Switch a board's USB hub port off and on; wait for its serial to return");
      cycle->add_option("BOARD", u->board, "inventory board name")->required();
      cycle->add_option("--lab", u->lab_file, "lab inventory (default lab.json)");
      cycle->add_option("--off-ms", u->off_ms, "milliseconds the port stays off (default 2000)")
          ->check(CLI::Range(0, 60000));
      cycle->add_option("--timeout-ms", u->come_back_ms,
                        "bound on waiting for the serial to return (default 20000)")
          ->check(CLI::Range(0, 600000));
      return [f, init, issue, revoke, u, usb, cycle]() -> int {
        if (usb->parsed()) {
          std::unique_ptr<lab::usb::UsbBackend> b = OpenLibusb("usb");
          if (!b && !u->json) return kExitOk;  // said so
          return RunLabUsb(*u, b.get());
        }
        if (cycle->parsed()) {
          if (u->lab_file.empty()) u->lab_file = "lab.json";
          std::unique_ptr<lab::usb::UsbBackend> b = OpenLibusb("power-cycle");
          return RunPowerCycle(*u, b.get());
        }
        if (init->parsed()) {
          const int rc = Report("init-ca", lab::net::InitCa(f->ca_dir));
          if (rc == kExitOk) {
            std::printf("wrote %s/ca.key (0600), %s/ca.crt and %s/crl.pem\n", f->ca_dir.c_str(),
                        f->ca_dir.c_str(), f->ca_dir.c_str());
          }
          return rc;
        }
        if (issue->parsed()) {
          const std::string out = f->out.empty() ? f->issue_ca : f->out;
          Result<lab::net::Role> role = lab::net::ParseRole(f->role);
          if (!role.ok()) return Report("issue", role.status());
          const int rc = Report("issue", lab::net::IssueCertificate(
                                             f->name, f->issue_ca, out,
                                             lab::net::IssueOptions{.role = *role, .days = f->days}));
          if (rc == kExitOk) {
            std::printf("wrote %s/%s.key (0600) and %s/%s.crt\n", out.c_str(), f->name.c_str(),
                        out.c_str(), f->name.c_str());
          }
          return rc;
        }
        if (revoke->parsed()) {
          const std::string out = f->out.empty() ? f->issue_ca : f->out;
          const int rc = Report("revoke", lab::net::RevokeCertificate(f->name, f->issue_ca, out));
          if (rc == kExitOk) {
            std::printf("revoked %s/%s.crt in %s/crl.pem; agents and runners load it when they "
                        "start\n", out.c_str(), f->name.c_str(), f->issue_ca.c_str());
          }
          return rc;
        }
        return kExitUsage;
      };
    }};
}

}  // namespace ctte::cli

// Flattened device tree reader (see fdt.h).
#include "tests/lab/zynq/fdt.h"

namespace ctte::lab::zynq {

namespace {

constexpr uint32_t kMagic = 0xd00dfeed;
constexpr uint32_t kBeginNode = 1, kEndNode = 2, kProp = 3, kNop = 4, kEnd = 9;

struct Reader {
  const std::vector<uint8_t>& b;
  std::string where;
  Status Bad(uint64_t at, const std::string& what) const {
    return Status::Corruption(where + ": byte " + std::to_string(at) + ": " + what);
  }
  Result<uint32_t> U32(uint64_t at) const {
    if (at + 4 > b.size()) return Bad(at, "past the end of the blob");
    return static_cast<uint32_t>(b[at]) << 24 | static_cast<uint32_t>(b[at + 1]) << 16 |
           static_cast<uint32_t>(b[at + 2]) << 8 | b[at + 3];
  }
  Result<std::string> CString(uint64_t at, uint64_t end) const {
    for (uint64_t i = at; i < end && i < b.size(); ++i) {
      if (b[i] == 0) return std::string(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(i));
    }
    return Bad(at, "unterminated string");
  }
};

uint64_t Align4(uint64_t v) { return (v + 3) & ~uint64_t{3}; }

}  // namespace

std::string FdtNode::String(const std::string& prop) const {
  auto it = props.find(prop);
  if (it == props.end()) return "";
  std::string s;
  for (uint8_t c : it->second) {
    if (c == 0) break;
    s.push_back(static_cast<char>(c));
  }
  return s;
}

std::vector<uint32_t> FdtNode::Cells(const std::string& prop) const {
  std::vector<uint32_t> out;
  auto it = props.find(prop);
  if (it == props.end()) return out;
  const std::vector<uint8_t>& v = it->second;
  for (size_t i = 0; i + 4 <= v.size(); i += 4) {
    out.push_back(static_cast<uint32_t>(v[i]) << 24 | static_cast<uint32_t>(v[i + 1]) << 16 |
                  static_cast<uint32_t>(v[i + 2]) << 8 | v[i + 3]);
  }
  return out;
}

Result<FdtNode> ParseFdt(const std::vector<uint8_t>& blob, const std::string& where) {
  Reader r{blob, where};
  CTTE_ASSIGN_OR_RETURN(const uint32_t magic, r.U32(0));
  if (magic != kMagic) return r.Bad(0, "not a flattened device tree (magic)");
  CTTE_ASSIGN_OR_RETURN(const uint32_t total, r.U32(4));
  CTTE_ASSIGN_OR_RETURN(const uint32_t off_struct, r.U32(8));
  CTTE_ASSIGN_OR_RETURN(const uint32_t off_strings, r.U32(12));
  CTTE_ASSIGN_OR_RETURN(const uint32_t size_strings, r.U32(32));
  CTTE_ASSIGN_OR_RETURN(const uint32_t size_struct, r.U32(36));
  if (total > blob.size() || uint64_t{off_struct} + size_struct > total ||
      uint64_t{off_strings} + size_strings > total) {
    return r.Bad(4, "header sizes exceed the blob");
  }
  const uint64_t end = uint64_t{off_struct} + size_struct;
  std::vector<FdtNode> stack;
  FdtNode root;
  bool have_root = false;
  for (uint64_t at = off_struct; at < end;) {
    CTTE_ASSIGN_OR_RETURN(const uint32_t token, r.U32(at));
    const uint64_t token_at = at;
    at += 4;
    if (token == kBeginNode) {
      CTTE_ASSIGN_OR_RETURN(std::string name, r.CString(at, end));
      at = Align4(at + name.size() + 1);
      if (stack.size() > 64) return r.Bad(token_at, "nodes nested deeper than 64");
      stack.push_back(FdtNode{std::move(name), {}, {}});
    } else if (token == kEndNode) {
      if (stack.empty()) return r.Bad(token_at, "END_NODE without a node");
      FdtNode n = std::move(stack.back());
      stack.pop_back();
      if (stack.empty()) {
        root = std::move(n);
        have_root = true;
      } else {
        stack.back().children.push_back(std::move(n));
      }
    } else if (token == kProp) {
      if (stack.empty()) return r.Bad(token_at, "property outside a node");
      CTTE_ASSIGN_OR_RETURN(const uint32_t len, r.U32(at));
      CTTE_ASSIGN_OR_RETURN(const uint32_t nameoff, r.U32(at + 4));
      at += 8;
      if (at + len > end) return r.Bad(token_at, "property value past the structure block");
      if (nameoff >= size_strings) return r.Bad(token_at, "property name outside the strings block");
      CTTE_ASSIGN_OR_RETURN(std::string pname,
                            r.CString(uint64_t{off_strings} + nameoff, uint64_t{off_strings} + size_strings));
      stack.back().props[pname] = std::vector<uint8_t>(blob.begin() + static_cast<long>(at),
                                                        blob.begin() + static_cast<long>(at + len));
      at = Align4(at + len);
    } else if (token == kNop) {
      continue;
    } else if (token == kEnd) {
      break;
    } else {
      return r.Bad(token_at, "unknown token " + std::to_string(token));
    }
  }
  if (!have_root || !stack.empty()) return r.Bad(off_struct, "unbalanced nodes");
  return root;
}

}  // namespace ctte::lab::zynq

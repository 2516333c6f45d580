#include "sanitize/suppression.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <tinyxml2.h>

#include "common/read_file.h"
#include "sanitize/options.h"

namespace softgpu::sanitize {
namespace {

constexpr const char* kRoot = "softgpuSanitizer";
constexpr uint64_t kMaxSuppressionFileBytes = 64ull << 20;

// XML 1.0 allows no control characters but tab and newline: '?' for them.
std::string xml_safe(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') c = '?';
  return out;
}

void push_element(tinyxml2::XMLPrinter& p, const char* name, std::string_view text) {
  p.OpenElement(name);
  p.PushText(xml_safe(text).c_str());
  p.CloseElement();
}

std::string trimmed(const char* s) {
  std::string_view v = s ? s : "";
  const size_t b = v.find_first_not_of(" \t\r\n"), e = v.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(v.substr(b, e - b + 1));
}

}  // namespace

bool matches(const Identity& rule, const Identity& finding) {
  return std::all_of(kFields.begin(), kFields.end(), [&](const auto& f) {
    const std::string& want = rule.*f.second;
    return want.empty() || want == finding.*f.second;
  });
}

bool suppressed(const std::vector<Identity>& rules, const Identity& finding) {
  return std::any_of(rules.begin(), rules.end(), [&](const Identity& r) { return matches(r, finding); });
}

Result<std::vector<Identity>> parse_suppressions(std::string_view xml, std::string_view file) {
  auto bad = [&](int line, const std::string& why) {
    return Error{Status::InvalidValue, fmt::format("suppression file '{}': line {}: {}", file, line, why)};
  };
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS)
    return bad(doc.ErrorLineNum(), fmt::format("not well-formed XML ({})", doc.ErrorName()));
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root) return bad(1, "no root element");
  if (std::strcmp(root->Name(), kRoot) != 0)
    return bad(root->GetLineNum(), fmt::format("the root element is <{}>, not <{}>: softgpu reads the reports it "
                                               "wrote with --xml, not compute-sanitizer's files",
                                               root->Name(), kRoot));
  std::vector<Identity> rules;
  for (const tinyxml2::XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string_view name = e->Name();
    if (name == "message" || name == "summary") continue;
    if (name != "record") return bad(e->GetLineNum(), fmt::format("unknown element <{}>", name));
    Identity id;
    for (const tinyxml2::XMLElement* f = e->FirstChildElement(); f; f = f->NextSiblingElement()) {
      const std::string_view field = f->Name();
      if (field == "text") continue;
      auto it = std::find_if(kFields.begin(), kFields.end(), [&](const auto& k) { return field == k.first; });
      if (it == kFields.end()) return bad(f->GetLineNum(), fmt::format("unknown field <{}> in a record", field));
      std::string& slot = id.*it->second;
      if (!slot.empty()) return bad(f->GetLineNum(), fmt::format("field <{}> given twice", field));
      slot = trimmed(f->GetText());
      if (slot.empty() || f->FirstChildElement())
        return bad(f->GetLineNum(), fmt::format("field <{}> must hold text", field));
    }
    if (id.tool.empty() || id.kind.empty()) return bad(e->GetLineNum(), "a record needs <tool> and <kind>");
    if (!tool_from_name(id.tool)) return bad(e->GetLineNum(), fmt::format("unknown tool '{}'", id.tool));
    if (std::find(kKinds.begin(), kKinds.end(), id.kind) == kKinds.end())
      return bad(e->GetLineNum(), fmt::format("unknown kind '{}'", id.kind));
    rules.push_back(std::move(id));
  }
  return rules;
}

Result<std::vector<Identity>> read_suppressions(const std::string& path) {
  auto text = read_regular_file(path, kMaxSuppressionFileBytes);
  if (!text) return Error{text.error().status, "suppression file " + text.error().message};
  return parse_suppressions(*text, path);
}

std::string xml_begin(std::string_view tool) {
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{} version=\"1\" tool=\"{}\">\n", kRoot,
                     xml_safe(tool));
}

std::string xml_record(const Identity& id, std::string_view text) {
  tinyxml2::XMLPrinter p(nullptr, false, 1);
  p.OpenElement("record");
  for (const auto& [name, member] : kFields)
    if (!(id.*member).empty()) push_element(p, name, id.*member);
  push_element(p, "text", text);
  p.CloseElement();
  return std::string(p.CStr()) + "\n";
}

std::string xml_message(std::string_view text) {
  tinyxml2::XMLPrinter p(nullptr, false, 1);
  push_element(p, "message", text);
  return std::string(p.CStr()) + "\n";
}

std::string xml_end(const Counts& counts, const std::vector<std::string>& summary) {
  tinyxml2::XMLPrinter p(nullptr, false, 1);
  p.OpenElement("summary");
  push_element(p, "errors", std::to_string(counts.errors));
  push_element(p, "warnings", std::to_string(counts.warnings));
  for (const std::string& l : summary) push_element(p, "message", l);
  p.CloseElement();
  return fmt::format("{}\n</{}>\n", p.CStr(), kRoot);
}

}  // namespace softgpu::sanitize

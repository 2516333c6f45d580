#include "ptx/diagnostics.h"

#include <fmt/format.h>

namespace softgpu::ptx {
namespace {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    case Severity::NotImplemented: return "not implemented";
  }
  return "error";
}

}  // namespace

std::string render(const std::vector<Diagnostic>& diags, std::string_view source) {
  // Line starts, computed once: rendering many diagnostics stays linear.
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < source.size(); ++i)
    if (source[i] == '\n') starts.push_back(i + 1);

  std::string out;
  for (const auto& d : diags) {
    out += fmt::format("{}:{}:{}: {}: {}\n", d.filename, d.loc.line, d.loc.col, severity_name(d.severity),
                       d.message);
    if (d.loc.line == 0 || d.loc.line > starts.size()) continue;
    size_t b = starts[d.loc.line - 1];
    size_t e = source.find('\n', b);
    std::string_view line = source.substr(b, (e == std::string_view::npos ? source.size() : e) - b);
    std::string shown, caret;
    for (char c : line) {
      unsigned char u = static_cast<unsigned char>(c);
      // Keep tabs so the caret lines up; blank out other control bytes.
      shown += (u < 0x20 && c != '\t') || u == 0x7F ? ' ' : c;
    }
    size_t col = d.loc.col == 0 ? 0 : d.loc.col - 1;
    for (size_t i = 0; i < col && i < line.size(); ++i) caret += line[i] == '\t' ? '\t' : ' ';
    if (col > line.size()) caret.append(std::min<size_t>(col - line.size(), 4096), ' ');
    out += shown;
    out += '\n';
    out += caret;
    out += "^\n";
  }
  return out;
}

bool has_errors(const std::vector<Diagnostic>& diags) {
  for (const auto& d : diags)
    if (d.severity == Severity::Error) return true;
  return false;
}

bool has_not_implemented(const std::vector<Diagnostic>& diags) {
  for (const auto& d : diags)
    if (d.severity == Severity::NotImplemented) return true;
  return false;
}

}  // namespace softgpu::ptx

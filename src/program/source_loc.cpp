// CUDA source locations of decoded instructions (from .file/.loc).
#include <algorithm>

#include <fmt/format.h>

#include "program/program.h"

namespace softgpu::program {

std::optional<SourceLine> source_location(const Program& p, const Inst& in) {
  if (in.src_file == 0 || in.src_file > p.source_files.size()) return std::nullopt;
  return SourceLine{uint32_t(in.src_file - 1), in.src_line, in.src_col};
}

std::optional<SourceLine> inlined_call_site(const Function& f, uint32_t pc) {
  auto it = std::lower_bound(f.inlined_at.begin(), f.inlined_at.end(), pc,
                             [](const auto& e, uint32_t v) { return e.first < v; });
  if (it == f.inlined_at.end() || it->first != pc) return std::nullopt;
  return it->second;
}

std::string format_source_line(const Program& p, const SourceLine& l, bool full_path) {
  if (l.file >= p.source_files.size()) return "";
  std::string_view name = p.source_files[l.file];
  if (!full_path)
    if (size_t slash = name.find_last_of("/\\"); slash != name.npos && slash + 1 < name.size())
      name = name.substr(slash + 1);
  return fmt::format("{}:{}", name, l.line);
}

std::string describe_source(const Program& p, const Function& f, uint32_t pc, bool full_path) {
  if (pc >= f.code.size()) return "";
  auto here = source_location(p, f.code[pc]);
  if (!here) return "";
  std::string out = format_source_line(p, *here, full_path);
  if (auto site = inlined_call_site(f, pc); site && site->file < p.source_files.size())
    out += " inlined at " + format_source_line(p, *site, full_path);
  return out;
}

}  // namespace softgpu::program

#include "sanitize/report.h"

#include <cstdlib>

#include <fmt/format.h>

namespace softgpu::sanitize {

std::string dim(Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

std::string grouped(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::vector<std::string> site_lines(const program::Function& fn, uint32_t pc, const program::Program* prog,
                                    bool frames_apart) {
  std::vector<std::string> v;
  const program::Inst* in = pc < fn.code.size() ? &fn.code[pc] : nullptr;
  const std::string name = demangle(fn.name);
  if (!in) {
    v.push_back(fmt::format("at {}", name));
    return v;
  }
  auto here = prog ? program::source_location(*prog, *in) : std::nullopt;
  const std::string src = !here ? std::string()
                          : frames_apart ? program::format_source_line(*prog, *here)
                                         : program::describe_source(*prog, fn, pc);
  if (!src.empty()) v.push_back(fmt::format("at {} in {}", name, src));
  else v.push_back(fmt::format("at {} in PTX line {}", name, in->line));
  v.push_back(fmt::format("PTX line {}: {}", in->line, in->text()));
  return v;
}

std::vector<std::string> device_frames(const program::Function& fn, uint32_t pc, const program::Program* prog) {
  if (!prog || pc >= fn.code.size() || !program::source_location(*prog, fn.code[pc])) return {};
  auto site = program::inlined_call_site(fn, pc);
  if (!site) return {};
  const std::string line = program::format_source_line(*prog, *site);
  if (line.empty()) return {};
  return {fmt::format("Device Frame:{} in {}", demangle(fn.name), line)};
}

Reporter::Reporter(const Options& o) : opts_(o), result_(o.result_file) {
  out_ = stdout;
  if (!opts_.log_file.empty()) {
    if (std::FILE* f = std::fopen(opts_.log_file.c_str(), "a")) {
      out_ = f;
      own_ = true;
    } else {
      std::fprintf(stderr, "softgpu sanitize: cannot open the log file '%s'; writing to stdout\n",
                   opts_.log_file.c_str());
    }
  }
  if (!opts_.suppressions.empty()) {
    // The CLI read it before the program started; this fails only if it changed since.
    if (auto rules = read_suppressions(opts_.suppressions)) suppressions_ = std::move(*rules);
    else std::fprintf(stderr, "softgpu sanitize: %s; nothing is suppressed\n", rules.error().message.c_str());
  }
}

Reporter::~Reporter() {
  if (own_) std::fclose(out_);
}

void Reporter::write(const std::string& s) {
  if (out_ == stdout) std::fflush(stdout);
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
}

bool Reporter::error(Identity id, std::string_view headline, const std::vector<std::string>& details) {
  return finding(&Counts::errors, nullptr, id, headline, details);
}

bool Reporter::warning(Identity id, std::string_view headline, const std::vector<std::string>& details) {
  return finding(&Counts::warnings, nullptr, id, headline, details);
}

bool Reporter::hazard(bool error, Identity id, std::string_view headline, const std::vector<std::string>& details) {
  return error ? finding(&Counts::errors, &Counts::hazard_errors_shown, id, headline, details)
               : finding(&Counts::warnings, &Counts::hazard_warnings_shown, id, headline, details);
}

bool Reporter::finding(uint64_t Counts::*count, uint64_t Counts::*shown, Identity& id, std::string_view headline,
                       const std::vector<std::string>& details) {
  std::lock_guard lock(mu_);
  id.tool = tool_name(opts_.tool);
  if (!suppressions_.empty() && suppressed(suppressions_, id)) return false;
  ++(counts_.*count);
  if (!opts_.print_limit || counts_.printed < opts_.print_limit) {
    ++counts_.printed;
    if (shown) ++(counts_.*shown);
    if (opts_.xml) {
      std::string text(headline);
      for (const std::string& d : details) text += fmt::format("\n    {}", d);
      write(xml_record(id, text));
    } else {
      std::string s = fmt::format("{}{}\n", kPrefix, headline);
      for (const std::string& d : details) s += fmt::format("{}{}\n", kDetail, d);
      write(s + "=========\n");
    }
  }
  result_.store(counts_);
  return true;
}

void Reporter::line(std::string_view text) {
  std::lock_guard lock(mu_);
  write(opts_.xml ? xml_message(text) : fmt::format("{}{}\n", kPrefix, text));
}

bool Reporter::wants_details() const {
  std::lock_guard lock(mu_);
  return !suppressions_.empty() || !opts_.print_limit || counts_.printed < opts_.print_limit;
}

uint64_t Reporter::errors() const {
  std::lock_guard lock(mu_);
  return counts_.errors;
}

uint64_t Reporter::warnings() const {
  std::lock_guard lock(mu_);
  return counts_.warnings;
}

void Reporter::finish() {
  std::lock_guard lock(mu_);
  if (finished_) return;
  finished_ = true;
  result_.store(counts_);
  if (!opts_.result_file.empty()) return;  // the CLI prints the summary
  std::string s;
  for (const std::string& l : summary_lines(opts_.tool, counts_))
    s += opts_.xml ? xml_message(l) : fmt::format("{}{}\n", kPrefix, l);
  write(s);
}

}  // namespace softgpu::sanitize

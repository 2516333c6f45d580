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
}

Reporter::~Reporter() {
  if (own_) std::fclose(out_);
}

bool Reporter::emit(std::string_view headline, const std::vector<std::string>& details) {
  if (opts_.print_limit && counts_.printed >= opts_.print_limit) return false;
  ++counts_.printed;
  if (out_ == stdout) std::fflush(stdout);
  std::string s = fmt::format("{}{}\n", kPrefix, headline);
  for (const std::string& d : details) s += fmt::format("{}{}\n", kDetail, d);
  s += "=========\n";
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
  return true;
}

void Reporter::error(std::string_view headline, const std::vector<std::string>& details) {
  std::lock_guard lock(mu_);
  ++counts_.errors;
  emit(headline, details);
  result_.store(counts_);
}

void Reporter::warning(std::string_view headline, const std::vector<std::string>& details) {
  std::lock_guard lock(mu_);
  ++counts_.warnings;
  emit(headline, details);
  result_.store(counts_);
}

void Reporter::hazard(bool error, std::string_view headline, const std::vector<std::string>& details) {
  std::lock_guard lock(mu_);
  ++(error ? counts_.errors : counts_.warnings);
  if (emit(headline, details)) ++(error ? counts_.hazard_errors_shown : counts_.hazard_warnings_shown);
  result_.store(counts_);
}

void Reporter::line(std::string_view text) {
  std::lock_guard lock(mu_);
  if (out_ == stdout) std::fflush(stdout);
  std::fputs(fmt::format("{}{}\n", kPrefix, text).c_str(), out_);
  std::fflush(out_);
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
  if (out_ == stdout) std::fflush(stdout);
  std::string s;
  for (const std::string& l : summary_lines(opts_.tool, counts_)) s += fmt::format("{}{}\n", kPrefix, l);
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
}

}  // namespace softgpu::sanitize

#include "sanitize/report.h"

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

namespace softgpu::sanitize {

std::string dim(Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

std::vector<std::string> site_lines(const program::Function& fn, uint32_t pc, const program::Program* prog) {
  std::vector<std::string> v;
  const program::Inst* in = pc < fn.code.size() ? &fn.code[pc] : nullptr;
  const std::string name = demangle(fn.name);
  if (!in) {
    v.push_back(fmt::format("at {}", name));
    return v;
  }
  const std::string src = prog ? program::describe_source(*prog, fn, pc) : std::string();
  if (!src.empty()) v.push_back(fmt::format("at {} in {}", name, src));
  else v.push_back(fmt::format("at {} in PTX line {}", name, in->line));
  v.push_back(fmt::format("PTX line {}: {}", in->line, in->text()));
  return v;
}

Reporter::Reporter(const Options& o) : opts_(o) {
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

void Reporter::emit(std::string_view headline, const std::vector<std::string>& details) {
  if (opts_.print_limit && printed_ >= opts_.print_limit) return;
  ++printed_;
  if (out_ == stdout) std::fflush(stdout);
  std::string s = fmt::format("{}{}\n", kPrefix, headline);
  for (const std::string& d : details) s += fmt::format("{}{}\n", kDetail, d);
  s += "=========\n";
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
}

void Reporter::error(std::string_view headline, const std::vector<std::string>& details) {
  std::lock_guard lock(mu_);
  ++errors_;
  emit(headline, details);
}

void Reporter::warning(std::string_view headline, const std::vector<std::string>& details) {
  std::lock_guard lock(mu_);
  ++warnings_;
  emit(headline, details);
}

void Reporter::line(std::string_view text) {
  std::lock_guard lock(mu_);
  if (out_ == stdout) std::fflush(stdout);
  std::fputs(fmt::format("{}{}\n", kPrefix, text).c_str(), out_);
  std::fflush(out_);
}

uint64_t Reporter::errors() const {
  std::lock_guard lock(mu_);
  return errors_;
}

uint64_t Reporter::warnings() const {
  std::lock_guard lock(mu_);
  return warnings_;
}

void Reporter::finish() {
  std::lock_guard lock(mu_);
  if (finished_) return;
  finished_ = true;
  if (out_ == stdout) std::fflush(stdout);
  std::string s = error_summary_ ? fmt::format("{}ERROR SUMMARY: {} error{}\n", kPrefix, errors_, errors_ == 1 ? "" : "s")
                                 : std::string();
  const uint64_t shown = printed_;
  const uint64_t total = errors_ + warnings_;
  if (total > shown)
    s += fmt::format("{}ERROR SUMMARY: {} error{} not printed. Use --print-limit option to adjust the number of "
                     "printed errors\n",
                     kPrefix, total - shown, total - shown == 1 ? " was" : "s were");
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
  if (!opts_.result_file.empty()) {
    if (std::FILE* f = std::fopen(opts_.result_file.c_str(), "w")) {
      std::fprintf(f, "errors %llu\nwarnings %llu\n", (unsigned long long)errors_, (unsigned long long)warnings_);
      std::fclose(f);
    }
  }
}

}  // namespace softgpu::sanitize

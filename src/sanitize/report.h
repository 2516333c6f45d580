// Report lines as compute-sanitizer prints them, so scripts that parse its
// output parse ours: every line starts with "========= ", details are
// indented four more spaces, a finding ends with a line of "=========".
#pragma once
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/demangle.h"
#include "common/types.h"
#include "program/program.h"
#include "sanitize/options.h"

namespace softgpu::sanitize {

inline constexpr std::string_view kPrefix = "========= ";
inline constexpr std::string_view kDetail = "=========     ";

using softgpu::demangle;  // common/demangle.h

// The detail lines naming where an instruction is: "at kernel(int*) in
// file.cu:12" (the CUDA source line when the PTX carries .loc and `prog` is
// given, with "inlined at" when it was inlined; else "in PTX line N"), then
// softgpu's addition "PTX line N: <instruction>".
std::vector<std::string> site_lines(const program::Function& fn, uint32_t pc,
                                    const program::Program* prog = nullptr);

// "(x,y,z)"
std::string dim(Dim3 d);

// Prints findings up to the print limit, counts them all, and writes the
// counts for the CLI at the end. Thread-safe.
class Reporter {
 public:
  explicit Reporter(const Options& o);
  ~Reporter();
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  // A finding: the headline, then detail lines. Errors count towards the
  // ERROR SUMMARY and --error-exitcode; warnings (racecheck) do not.
  void error(std::string_view headline, const std::vector<std::string>& details);
  void warning(std::string_view headline, const std::vector<std::string>& details);
  // A line printed as is after the prefix (summaries), never limited.
  void line(std::string_view text);

  // A tool with its own summary line (racecheck) prints no ERROR SUMMARY.
  void omit_error_summary() { error_summary_ = false; }

  uint64_t errors() const;
  uint64_t warnings() const;
  // The ERROR SUMMARY lines (and "not printed" when the limit cut some),
  // and the result file for the CLI. Called once, at the end.
  void finish();

 private:
  void emit(std::string_view headline, const std::vector<std::string>& details);
  Options opts_;
  std::FILE* out_ = nullptr;
  bool own_ = false;
  mutable std::mutex mu_;
  uint64_t errors_ = 0, warnings_ = 0, printed_ = 0;
  bool finished_ = false;
  bool error_summary_ = true;
};

}  // namespace softgpu::sanitize

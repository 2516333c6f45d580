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
#include "sanitize/result_file.h"
#include "sanitize/suppression.h"

namespace softgpu::sanitize {

inline constexpr std::string_view kPrefix = "========= ";
inline constexpr std::string_view kDetail = "=========     ";

using softgpu::demangle;  // common/demangle.h

// The detail lines naming where an instruction is: "at kernel(int*) in
// file.cu:12" (the CUDA source line when the PTX carries .loc and `prog` is
// given, with "inlined at file.cu:16" when it was inlined unless
// frames_apart (then device_frames says it); else "in PTX line N"), then
// softgpu's addition "PTX line N: <instruction>".
std::vector<std::string> site_lines(const program::Function& fn, uint32_t pc,
                                    const program::Program* prog = nullptr, bool frames_apart = false);
// For an instruction inlined from another function (.loc inlined_at): the
// frame it was inlined into, as compute-sanitizer's last detail line
// "Device Frame:kernel(int*) in file.cu:16" (the call's line); else none.
std::vector<std::string> device_frames(const program::Function& fn, uint32_t pc, const program::Program* prog);

// "(x,y,z)"
std::string dim(Dim3 d);
// "1,024" as compute-sanitizer prints byte counts and distances.
std::string grouped(uint64_t n);

// Prints findings up to the print limit, as text or XML records (--xml),
// counts them all, and keeps the counts in the result file for the CLI at
// every finding. A finding that a suppression (--suppressions) matches is
// neither printed nor counted. Thread-safe.
class Reporter {
 public:
  explicit Reporter(const Options& o);
  ~Reporter();
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  // A finding: its identity (suppression.h; the Reporter fills in the tool),
  // the headline, then detail lines. Errors count towards the ERROR SUMMARY
  // and --error-exitcode; warnings (racecheck) do not. False when it was
  // suppressed.
  bool error(Identity id, std::string_view headline, const std::vector<std::string>& details);
  bool warning(Identity id, std::string_view headline, const std::vector<std::string>& details);
  // A racecheck report (an error or a warning), counted as displayed in the
  // RACECHECK SUMMARY when it was printed.
  bool hazard(bool error, Identity id, std::string_view headline, const std::vector<std::string>& details);
  // A line printed as is after the prefix (summaries), never limited.
  void line(std::string_view text);
  // Whether a finding's text and identity are still needed: the print limit
  // is not reached, or suppressions must be matched.
  bool wants_details() const;

  uint64_t errors() const;
  uint64_t warnings() const;
  // At the program's end: the summary lines (summary_lines) when no CLI
  // reads the result file; with one the CLI prints them once the program
  // ended, however it ended.
  void finish();

 private:
  // Unless a suppression matches it (then false): counts a finding in
  // `count`, prints it while under the print limit (counting it in `shown`
  // too, when given), and stores the counts.
  bool finding(uint64_t Counts::*count, uint64_t Counts::*shown, Identity& id, std::string_view headline,
               const std::vector<std::string>& details);
  void write(const std::string& s);
  Options opts_;
  std::vector<Identity> suppressions_;
  std::FILE* out_ = nullptr;
  bool own_ = false;
  mutable std::mutex mu_;
  Counts counts_;
  ResultFile result_;
  bool finished_ = false;
};

}  // namespace softgpu::sanitize

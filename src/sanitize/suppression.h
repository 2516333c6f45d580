// softgpu sanitize's XML report (--xml) and the suppression files made from
// it (--suppressions F). The format is softgpu's own (docs/sanitizers.md):
//
//   <?xml version="1.0" encoding="UTF-8"?>
//   <softgpuSanitizer version="1" tool="memcheck">
//       <record>                       one per finding printed
//           <tool>memcheck</tool>      the finding's identity: the fields below
//           <kind>api_error</kind>
//           <function>cudaMalloc</function>
//           <error>2</error>
//           <text>Program hit ...</text>  the report as printed (not matched)
//       </record>
//       <message>LEAK SUMMARY: ...</message>   lines that are not findings
//       <summary>...</summary>         written by the CLI once the program ended
//   </softgpuSanitizer>
//
// The program's Reporter appends records as findings happen; the CLI writes
// the opening and closing lines, so the file is whole also after an abort.
// A finding is suppressed when a record of the file has the same value in
// every identity field the record holds (a record without `location`
// suppresses the kind at every location). Identities hold what stays the
// same from run to run: never addresses, thread or block indices, counts.
#pragma once
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/types.h"
#include "sanitize/result_file.h"

namespace softgpu::sanitize {

struct Identity {
  std::string tool;            // memcheck|racecheck|initcheck|synccheck (the Reporter fills it)
  std::string kind;            // one of kKinds
  std::string function;        // API errors, uninitialized copies: the CUDA API function
  std::string error;           // API errors: the error code ("2")
  std::string kernel;          // device findings: the launched kernel, demangled
  std::string location;        // device findings: "file.cu:12" (with "inlined at ..."), else "PTX line 35"
  std::string other_location;  // races: the second access's location
  std::string access;          // read|write|atomic; races: "write-read"; hazards: RAW|WAR|WAW
  std::string space;           // global|shared|local; leaks: global|heap
  std::string size;            // bytes per access; leaks and unused memory: the allocation's bytes
};

// The identity fields by their XML element names, in the order written.
inline constexpr std::array<std::pair<const char*, std::string Identity::*>, 10> kFields{{
    {"tool", &Identity::tool},
    {"kind", &Identity::kind},
    {"function", &Identity::function},
    {"error", &Identity::error},
    {"kernel", &Identity::kernel},
    {"location", &Identity::location},
    {"other_location", &Identity::other_location},
    {"access", &Identity::access},
    {"space", &Identity::space},
    {"size", &Identity::size},
}};

// The finding kinds, by tool: memcheck (and every tool's API errors),
// initcheck, racecheck, synccheck.
inline constexpr std::array<const char*, 15> kKinds{
    "api_error",          "invalid_access",        "misaligned_access",         "invalid_free",
    "double_free",        "leak",                  "uninitialized_read",        "uninitialized_shared_read",
    "uninitialized_copy", "unused_memory",         "race",                      "hazard",
    "sync_warp_divergence", "sync_block_divergence", "sync_invalid_arguments"};

// True when every field `rule` holds (non-empty) equals the finding's.
bool matches(const Identity& rule, const Identity& finding);
bool suppressed(const std::vector<Identity>& rules, const Identity& finding);

// The records of a report written with --xml. Errors (InvalidValue, the
// message naming `file` and the line): not XML, another root element (as
// compute-sanitizer's own files have), an unknown element or field, a field
// given twice or empty, a record without tool or kind, an unknown tool or kind.
Result<std::vector<Identity>> parse_suppressions(std::string_view xml, std::string_view file);
// parse_suppressions of the file at `path` (common/read_file.h: regular
// files of at most 64 MiB).
Result<std::vector<Identity>> read_suppressions(const std::string& path);

// The pieces of an XML report, each ending with a newline.
std::string xml_begin(std::string_view tool);
std::string xml_record(const Identity& id, std::string_view text);
std::string xml_message(std::string_view text);
std::string xml_end(const Counts& counts, const std::vector<std::string>& summary);

}  // namespace softgpu::sanitize

// Diagnostics for PTX input: file:line:col, a caret under the source line.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ptx/ast.h"

namespace softgpu::ptx {

// NotImplemented: valid PTX that softgpu cannot run (an instruction it does
// not implement). The module still loads; the kernels that reach such an
// instruction fail at launch. `softgpu check` reports it and exits non-zero.
enum class Severity : uint8_t { Error, Warning, Note, NotImplemented };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string filename;
  SourceLoc loc;
  std::string message;  // lower-case, no trailing period
};

// Renders "file:line:col: error: message\n<source line>\n    ^" for each diagnostic.
std::string render(const std::vector<Diagnostic>& diags, std::string_view source);

bool has_errors(const std::vector<Diagnostic>& diags);
bool has_not_implemented(const std::vector<Diagnostic>& diags);

}  // namespace softgpu::ptx

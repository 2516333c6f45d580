// PTX text -> Module. Never aborts: any input yields a module or diagnostics.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/ast.h"
#include "ptx/diagnostics.h"

namespace softgpu::ptx {

struct ParseResult {
  std::optional<Module> module;        // present when no errors were found
  std::vector<Diagnostic> diagnostics; // errors and warnings, in source order
};

// Parses a whole module. Stops after max_errors errors.
ParseResult parse(std::string_view text, std::string filename = "<ptx>", size_t max_errors = 20);

}  // namespace softgpu::ptx

// Module -> PTX text. The output re-parses to an equal module (locations aside).
#pragma once
#include <string>

#include "ptx/ast.h"

namespace softgpu::ptx {

std::string print(const Module& m);

// Pieces, for diagnostics and dumps elsewhere.
std::string print(const Instruction& in);
std::string print(const Operand& op);
std::string_view type_name(Type t);    // Type::B32 -> ".b32"
std::string_view space_name(Space s);  // Space::Global -> ".global"

}  // namespace softgpu::ptx

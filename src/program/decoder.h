// AST -> decoded Program: resolve names, lay out shared/local/param memory,
// decode modifiers, link functions across modules, compute reconvergence.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "program/program.h"
#include "ptx/diagnostics.h"

namespace softgpu::program {

struct DecodeInput {
  const std::vector<ptx::Module>* modules = nullptr;
  // Addresses of module-scope .global/.const variables, allocated by the
  // loader before decoding (name -> device address).
  const std::unordered_map<std::string, uint64_t>* variable_addresses = nullptr;
};

// Fills an instruction's typed modifier fields from its dotted words
// (".global", ".v4", ".f32" ...), as the decoder does.
void decode_instruction_modifiers(Inst& in, const std::vector<std::string>& mods);

// Decodes and links; on error returns false and appends diagnostics.
bool decode(const DecodeInput& in, Program& out, std::vector<ptx::Diagnostic>& diags);

// Immediate post-dominators of a function's instructions; index code.size()
// is the virtual exit. Nodes that cannot reach the exit get the exit.
std::vector<uint32_t> immediate_post_dominators(const Function& f);

// Sets f.undefined_regs (and regs_analysed): the register slots that an
// instruction may read on some path from the function's entry that has no
// unguarded write of them (f.facts first). nvcc's code reads none; what a
// program reads uninitialized starts at zero. Left unanalysed (every slot
// counts) for functions too large to analyse cheaply.
void find_undefined_reads(Function& f);

// Fuses f32/f64 mul + add/sub pairs without rounding modifiers into fma
// where ptxas does (program/contract.cpp); f.facts first, and again after
// a change. True if it changed something.
bool contract_mul_add(Function& f);

}  // namespace softgpu::program

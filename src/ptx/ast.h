// The PTX module as written: the parser's output, the decoder's input.
// Nothing here is resolved yet: registers and labels are names, modifiers
// are the dotted words in source order.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace softgpu::ptx {

struct SourceLoc {
  uint32_t line = 0;  // 1-based line in the PTX text
  uint32_t col = 0;   // 1-based column
};

// A position in the program's CUDA source, from ".loc file line col": file
// is the number a ".file" directive gave the name (Module::files), not an
// index into that vector. Line and column are as nvcc wrote them (0 = not known).
struct DebugLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  bool operator==(const DebugLoc&) const = default;
};

enum class Space : uint8_t { Reg, Sreg, Const, Global, Local, Param, Shared, Tex, Generic };

// Scalar types as spelled in PTX (".b32" -> B32). Pred is ".pred".
enum class Type : uint8_t {
  None, Pred,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, TF32, F32, F64,
  E4M3, E5M2, E4M3x2, E5M2x2,
};

// One element of an initializer list. Nested braces are flattened in order.
struct InitValue {
  enum class Kind : uint8_t { Int, Float, Symbol } kind = Kind::Int;
  uint64_t bits = 0;        // Int: two's complement value; Float: value as written, see is_double
  bool is_double = false;   // Float literal written as 0dXXXXXXXXXXXXXXXX or a decimal
  double fvalue = 0;        // Float: value
  std::string symbol;       // Symbol: address of this symbol (+ offset in bits for generic(sym)+N)
  bool generic = false;     // written as generic(sym)
};

// A variable or parameter declaration: ".global .align 4 .b8 name[16] = {...};"
// Also register declarations: ".reg .b32 %r<45>;" (count = 45, name = "%r").
struct VarDecl {
  Space space = Space::Reg;
  Type type = Type::None;
  uint32_t vector = 1;               // .v2 / .v4 -> 2 / 4
  uint32_t align = 0;                // 0 = natural alignment
  std::string name;
  std::optional<uint32_t> reg_count; // "%r<45>": 45 registers %r0..%r44
  std::vector<std::optional<uint64_t>> dims;  // array dimensions; nullopt = "[]" (unsized, e.g. extern shared)
  std::vector<InitValue> init;       // empty = no initializer
  // Parameter attributes: ".param .u64 .ptr .global .align 8 p".
  bool managed = false;               // .attribute(.managed): a __managed__ variable
  bool is_ptr = false;
  std::optional<Space> ptr_space;
  uint32_t ptr_align = 0;
  SourceLoc loc;
};

struct Operand;
using OperandList = std::vector<Operand>;

struct Operand {
  enum class Kind : uint8_t {
    Register,   // %r1, or a predicate; name holds "%r1"; also special registers like %tid.x (name "%tid.x")
    Symbol,     // a variable, function or label name used as a value: "smem", "$L__BB0_3"
    Int,        // integer literal (decimal, hex 0x, octal, binary 0b), value in ival
    Float,      // 0fXXXXXXXX (f32 bits) or 0dXXXXXXXXXXXXXXXX (f64 bits)
    Address,    // [base+offset]; base is a register or symbol name or empty (absolute), offset in ival
    Vector,     // {a, b, c, d}: elements in list
    List,       // (a, b): call argument/return lists
    Sink,       // "_"
  } kind = Kind::Int;
  std::string name;        // Register/Symbol name, Address base (empty = absolute address)
  int64_t ival = 0;        // Int value, Address offset
  uint64_t fbits = 0;      // Float: raw bits
  bool is_f64 = false;     // Float: 0d (true) or 0f (false)
  bool negate = false;     // "!%p" (predicate negation as source operand)
  bool base_is_register = false;  // Address: base is a %register
  OperandList list;        // Vector/List elements
  // "%r15|%p1": second destination written with '|' (shfl.sync, setp pairs).
  std::shared_ptr<Operand> pair;
  SourceLoc loc;
};

struct Instruction {
  std::string opcode;                  // "ld", "mma", "cp" (for cp.async the rest goes to modifiers)
  std::vector<std::string> modifiers;  // ".global", ".v4", ".f32" ... in source order, with the dot
  std::optional<std::string> guard;    // "@%p1" -> "%p1"
  bool guard_negated = false;          // "@!%p1"
  std::vector<Operand> operands;
  SourceLoc loc;
  // The last ".loc" before the instruction in its function, if any.
  std::optional<DebugLoc> debug_loc;
  // For code inlined from another function (".loc ..., function_name L,
  // inlined_at F L C"): the outermost call site, i.e. the line in the
  // function the PTX function was compiled from, with nested inlined_at
  // chains followed back through the earlier .loc directives.
  std::optional<DebugLoc> inlined_at;
  // Valid PTX that softgpu does not implement: an opcode it does not know
  // (opcode holds the mnemonic as written). (Known opcodes' forms no handler
  // accepts are found by the loader, exec/loader.cpp.)
  // The decoder makes it an Opcode::Unimplemented instruction; kernels that
  // reach it fail at launch.
  bool not_implemented = false;
};

struct Label {
  std::string name;
  SourceLoc loc;
  // A label may name a table instead of a code position:
  // "$L_tbl: .branchtargets $L1, $L2;" (targets of brx.idx) or
  // "prototype_3 : .callprototype (.param .b32 _) _ (.param .b64 _);"
  // (the signature of an indirect call).
  enum class Kind : uint8_t { Plain, BranchTargets, CallPrototype } kind = Kind::Plain;
  std::vector<std::string> targets;    // BranchTargets: label names in order
  std::vector<VarDecl> proto_returns;  // CallPrototype: return parameters
  std::vector<VarDecl> proto_params;   // CallPrototype: parameters
  bool proto_noreturn = false;         // CallPrototype: ".noreturn"
};

struct Block;
// A statement in a function body, in source order.
using Statement = std::variant<Instruction, Label, VarDecl, std::shared_ptr<Block>>;

// "{ ... }" scope: declarations inside are visible only within it.
struct Block {
  std::vector<Statement> body;
  SourceLoc loc;
};

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };

struct Function {
  std::string name;
  bool is_entry = false;         // .entry (kernel) vs .func
  Linkage linkage = Linkage::None;
  std::vector<VarDecl> returns;  // .func (.param .b32 retval) f(...)
  std::vector<VarDecl> params;
  std::optional<Block> body;     // absent for declarations (";" instead of a body)
  // Performance directives, e.g. {"maxntid", {256,1,1}}, {"reqntid",...}, {"minnctapersm",{2}}.
  std::vector<std::pair<std::string, std::vector<uint64_t>>> directives;
  bool noreturn = false;
  SourceLoc loc;
};

// ".callprototype" declarations appear as labels with a prototype; kept by name.
struct Module {
  std::string filename;          // for diagnostics
  uint32_t version_major = 0, version_minor = 0;
  std::string target;            // "sm_80" (first target word)
  std::vector<std::string> target_options;  // e.g. "texmode_independent", "debug"
  uint32_t address_size = 64;
  std::vector<VarDecl> globals;  // module-scope .global/.const/.shared/.local/.tex variables
  std::vector<Linkage> global_linkage;  // parallel to globals
  std::vector<Function> functions;  // in source order, declarations included
  std::vector<std::pair<uint32_t, std::string>> files;  // .file N "name" (numbers unique), in source order
};

}  // namespace softgpu::ptx

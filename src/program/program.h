// The decoded program: the one input to every executor. Registers are
// resolved to slots, symbols to addresses, labels to instruction indices,
// modifiers to typed fields, and each branch carries its reconvergence
// point (immediate post-dominator), all computed once at load.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "isa/opcode.h"
#include "ptx/ast.h"

namespace softgpu::program {

using ptx::Space;
using ptx::Type;

inline constexpr uint32_t kNoReg = 0xffffffffu;

// Generic-address windows for shared and local memory. They sit in the
// non-canonical part of the x86-64 address space, so no host pointer (and
// hence no global/managed allocation) can ever fall inside them.
inline constexpr uint64_t kSharedWindow = 0x0000'9000'0000'0000ull;
inline constexpr uint64_t kLocalWindow = 0x0000'a000'0000'0000ull;
inline constexpr uint64_t kWindowSize = 1ull << 40;
// Values that stand for function addresses (function pointers, indirect calls).
inline constexpr uint64_t kFunctionAddressBase = 0x0000'b000'0000'0000ull;

enum class Sreg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  Laneid, Warpid, Nwarpid, Smid, Nsmid, Gridid, Clock, ClockHi, Clock64, Globaltimer,
  GlobaltimerLo, GlobaltimerHi, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe,
  DynamicSmemSize, TotalSmemSize, WarpSz,
  ClusterCtarank, ClusterNctarank, ClusterIdX, ClusterIdY, ClusterIdZ, NclusterIdX, NclusterIdY,
  NclusterIdZ, ClusterCtaidX, ClusterCtaidY, ClusterCtaidZ, ClusterNctaidX, ClusterNctaidY,
  ClusterNctaidZ, IsExplicitCluster,
  // The shared memory CUDA reserves per block (sm_80+): begin, end, cap, _0, _1.
  ReservedSmemBegin, ReservedSmemEnd, ReservedSmemCap, ReservedSmem0, ReservedSmem1,
  Envreg0,  // Envreg0 + n for %envreg<n>, n < 32
  Count_ = Envreg0 + 32,
};

// %clock, %clock_hi, %clock64, %globaltimer(_lo/_hi): time, which a timing
// model answers when one listens (exec::ExecutionListener::read_clock).
inline bool is_clock(Sreg s) { return s >= Sreg::Clock && s <= Sreg::GlobaltimerHi; }

struct Operand {
  enum class Kind : uint8_t {
    None,
    Reg,        // 64-bit lane slot `reg`
    Pred,       // predicate slot `reg` (a 32-bit lane mask); `negate` for !%p
    Imm,        // constant bits in imm
    Sreg,       // special register `sreg`
    Addr,       // [base + imm]; base = reg slot or kNoReg; see addr_kind
    FrameAddr,  // value = this thread's frame-local base + imm (a __local_depot symbol)
    KParamAddr, // value = launch parameter buffer address + imm (a kernel param's address)
    Vec,        // vector: elements are operands vec_begin..vec_begin+vec_n in Function::vec_operands
                // (an Addr of tex/suld/sust keeps its coordinate vector the same way)
    Sink,       // "_"
  };
  // For Addr: what the symbol (if any) inside the brackets was.
  enum class AddrKind : uint8_t { Plain, Frame, KParam, FParam };
  Kind kind = Kind::None;
  AddrKind addr_kind = AddrKind::Plain;
  bool negate = false;
  Sreg sreg = Sreg::TidX;
  uint8_t vec_n = 0;
  uint32_t reg = kNoReg;
  uint32_t vec_begin = 0;
  int64_t imm = 0;
};

enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rs, Rni, Rzi, Rmi, Rpi };
// The integral rounding modes (cvt to integers, cvt.rXi between floats) as
// 0..3 = rni, rzi, rmi, rpi (nearest even, zero, down, up); -1 otherwise.
// The handlers and the JIT index their rounding by it.
inline int integral_round_index(Round r) {
  switch (r) {
    case Round::Rni: return 0;
    case Round::Rzi: return 1;
    case Round::Rmi: return 2;
    case Round::Rpi: return 3;
    default: return -1;
  }
}
enum class Cmp : uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };

// All modifiers of one instruction, decoded. Rare ones (tensor-core layouts,
// cache hints) stay as text in raw_mods for their handlers.
struct Modifiers {
  Space space = Space::Generic;  // ld/st/atom/cvta state space (Generic if absent)
  Round rnd = Round::None;
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  AtomOp atom = AtomOp::None;
  MulMode mul = MulMode::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  uint8_t vec = 1;         // .v2/.v4/.v8
  bool ftz = false, sat = false, approx = false, full = false, to = false, uni = false;
  bool nc = false, relu = false, clamp = false, wrap = false, shiftamt = false, cc = false;
  bool sync = false, aligned = false, arrive = false, red = false, noftz = false;
  // .l/.r (shf), .warp (bar.warp.sync), .cluster (barrier.cluster; a scope
  // elsewhere), .popc (bar.red): bits of one byte, so that Inst keeps its size.
  static constexpr uint8_t kLeft = 1, kRight = 2, kWarp = 4, kCluster = 8, kPopc = 16;
  // An fma the decoder made of a mul and a sub (program/contract.cpp):
  // fma(-a, b, c) or fma(a, b, -c).
  static constexpr uint8_t kNegProduct = 32, kNegAddend = 64;
  // A mul every use of which the decoder fused into an fma: ptxas drops it,
  // so it is no machine instruction (the executor still writes its register).
  static constexpr uint8_t kFolded = 128;
  uint8_t bits = 0;
  bool left() const { return bits & kLeft; }
  bool right() const { return bits & kRight; }
  bool warp() const { return bits & kWarp; }
  bool cluster() const { return bits & kCluster; }
  bool popc() const { return bits & kPopc; }
  bool neg_product() const { return bits & kNegProduct; }
  bool neg_addend() const { return bits & kNegAddend; }
  bool folded() const { return bits & kFolded; }
};

// A position in CUDA source: file indexes Program::source_files.
struct SourceLine {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;  // 0 = not known
  bool operator==(const SourceLine&) const = default;
};

struct Inst {
  isa::Opcode op = isa::Opcode::Mov;
  Type type = Type::None;   // the instruction type (last type modifier; cvt/set: destination)
  Type type2 = Type::None;  // second type (cvt/set/setp.. source, etc.)
  uint8_t nops = 0;
  bool has_guard = false, guard_neg = false;
  uint32_t guard = kNoReg;  // predicate slot
  Modifiers m;
  uint32_t target = 0;      // bra: target pc; call: callee function index
  uint32_t reconv = 0;      // bra/brx: reconvergence pc (immediate post-dominator)
  uint32_t line = 0;        // PTX source line
  uint32_t aux = 0;         // per-opcode extra (call: index into Function::calls; wgmma: see below;
                            // mma: its form, program/mma_form.h)
  // CUDA source location from the PTX's .loc/.file (nvcc -lineinfo or -G);
  // read it through source_location(). src_file is 1 + an index into
  // Program::source_files, 0 when the PTX gives none.
  uint16_t src_file = 0;
  uint16_t src_col = 0;     // 0 = not known (saturates at 65535)
  uint32_t src_line = 0;
  Operand o[7];                        // up to 6 operands in source order, then the pair slot
  static constexpr int kPairSlot = 6;  // "%r1|%p1": the second destination after '|'
  const Operand& pair() const { return o[kPairSlot]; }
  // The modifiers as written, for rare handlers and messages; for
  // Opcode::Unimplemented the mnemonic as written, then the modifiers.
  std::vector<std::string> raw_mods;
  std::string text() const;           // "ld.global.f32" for messages
};

// Where a call's arguments and return values live in the caller's and the
// callee's per-lane parameter areas.
struct CallSite {
  std::vector<std::pair<uint32_t, uint32_t>> args;  // (caller offset, size) per argument
  std::vector<std::pair<uint32_t, uint32_t>> rets;  // (caller offset, size) per return value
  bool indirect = false;    // target function comes from a register (o[aux_reg])
  uint32_t target_reg = kNoReg;
};

// wgmma.mma_async has up to eight operands: d, a, b and scale-d take
// operand slots; the immediates after them (imm-scale-a, imm-scale-b, then
// imm-trans-a and/or imm-trans-b, as the form has them) are modifiers in all
// but syntax and live in Inst::aux: two bits each (value + 1, values -1..1),
// their count above kWgmmaCountShift.
// The sparse form (.sp) has sp-meta and sp-sel between b and scale-d: six
// operand slots.
inline constexpr size_t kWgmmaOperands = 4;
inline constexpr size_t kWgmmaSparseOperands = 6;
inline constexpr size_t kWgmmaMaxImms = 4;
inline constexpr uint32_t kWgmmaCountShift = 24;
inline uint32_t wgmma_imm_count(const Inst& in) { return in.aux >> kWgmmaCountShift; }
inline int wgmma_imm(const Inst& in, uint32_t i) { return int((in.aux >> (2 * i)) & 3) - 1; }

// What the timing model and the analyses need of one instruction, computed
// once at decode (program/facts.h): the registers it reads and writes (slots
// in Function::reg_slots[first, first+writes) are written, the next `reads`
// are read; predicate slots carry kPredSlot), its pipe, and flags.
struct InstFacts {
  uint32_t first = 0;
  uint8_t writes = 0, reads = 0;
  uint8_t pipe = 0;   // program::Pipe
  uint8_t flags = 0;  // kFact*
  uint8_t sequence = 0;  // program::Sequence (program/sequence.h): 0 = one machine instruction
  uint8_t tensor = 0;         // mma / wmma.mma: TensorKind (0 = not a tensor-core product)
  uint32_t tensor_flops = 0;  // 2 x m x n x k of the product (one warp instruction)
};
// The operand types of a tensor-core product, which set its throughput.
enum class TensorKind : uint8_t { None, Fp16F32, Fp16F16, Bf16F32, Tf32, Fp64, Int8, Fp8F32, Fp8F16 };
inline constexpr uint8_t kFactAsyncWait = 2;  // cp.async.wait_group / wait_all
inline constexpr uint8_t kFactSlotsCut = 4;   // more than 255 reads or writes: the sets are cut short
inline constexpr uint8_t kFactTensorAsync = 8;    // wgmma.mma_async
inline constexpr uint8_t kFactTensorCommit = 16;  // wgmma.commit_group
inline constexpr uint8_t kFactTensorWait = 32;    // wgmma.wait_group
inline constexpr uint8_t kFactFolded = 64;        // a mul fused into all its uses (Modifiers::kFolded): not issued
inline constexpr uint8_t kFactSkipsL1 = 128;      // neither looks up nor fills the L1: cp.async.bulk (TMA: the TMA unit reads the L2), .cg loads and cp.async (PTX cache operator: "cache at global level")
inline constexpr uint32_t kPredSlot = 0x8000'0000u;

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_extern = false;      // declared only (resolved at link; vprintf/malloc/free/__assertfail are built in)
  enum class Builtin : uint8_t { None, Vprintf, Malloc, Free, Assertfail } builtin = Builtin::None;
  std::vector<Inst> code;      // pc = index; code.size() is the exit sentinel
  std::vector<Operand> vec_operands;
  std::vector<CallSite> calls;
  std::vector<std::vector<uint32_t>> branch_tables;  // brx.idx targets
  std::vector<InstFacts> facts;      // per pc (program/facts.h)
  std::vector<uint32_t> reg_slots;
  uint32_t num_regs = 0;       // 64-bit lane slots
  // Register slots that some path may read before an unguarded write sets
  // them (program/decoder.h, undefined_reads): a frame starts with these
  // zero, as if every register were. Not analysed: all of them.
  std::vector<uint32_t> undefined_regs;
  bool regs_analysed = false;
  uint32_t num_preds = 0;      // predicate slots
  uint32_t local_bytes = 0;    // per-thread frame-local memory (__local_depot and .local)
  uint32_t param_bytes = 0;    // per-lane parameter area: formals, returns, call-site params
  std::vector<std::pair<uint32_t, uint32_t>> formal_params;  // (offset, size) in param area
  std::vector<std::pair<uint32_t, uint32_t>> formal_returns;
  // Kernel entry only: the .param buffer layout (offset, size, align).
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> kernel_params;
  uint32_t kernel_param_bytes = 0;
  uint32_t max_threads = 0;    // .maxntid/.reqntid product
  uint32_t cluster_dims[3] = {0, 0, 0};  // .reqnctapercluster (0 = none)
  bool explicit_cluster = false;         // .explicitcluster
  bool uses_reserved_smem = false;       // reads a %reserved_smem_offset_* register
  bool reads_clock = false;              // reads %clock, %clock64 or %globaltimer (a timing model answers)
  uint32_t line = 0;
  // Code inlined from other functions: (pc, outermost call site) for each
  // such instruction, by pc; empty without .loc ... inlined_at.
  std::vector<std::pair<uint32_t, SourceLine>> inlined_at;
  // pcs of the instructions softgpu does not implement, in order: those the
  // decoder made Opcode::Unimplemented (an opcode it does not know), then
  // any the executor added at load (no handler for the form). A kernel that
  // reaches one, directly or through its callees, fails at launch.
  std::vector<uint32_t> unimplemented;
  uint32_t own_shared_bytes = 0;              // .shared declared inside this function
  std::vector<std::string> module_shared_refs;  // module-scope .shared variables it names
  uint32_t static_shared_bytes = 0;  // entry: .shared this kernel and its callees can reach
};

// All functions of all loaded modules, linked.
// The reserved shared memory region (%reserved_smem_offset_*): 1 KB per
// block from sm_80 on (CUDA programming guide, "Shared Memory"; configs'
// reserved_shared_memory_per_block). The executor places it after the
// block's own shared memory, in two halves named by _0 and _1.
inline constexpr uint32_t kReservedSmemBytes = 1024;

struct Program {
  std::vector<Function> functions;
  std::unordered_map<std::string, uint32_t> function_index;
  uint32_t static_shared_bytes = 0;  // every .shared variable, laid out from offset 0
  bool has_dynamic_shared = false;
  uint32_t dynamic_shared_offset = 0;  // where extern .shared arrays start (aligned)
  uint32_t ptx_version = 0;
  uint32_t sm_target = 0;
  // The CUDA source files the modules' .file directives name (as written,
  // usually absolute paths), one entry per distinct name.
  std::vector<std::string> source_files;
};

// Where an instruction came from in the CUDA source, if its PTX said (.loc).
std::optional<SourceLine> source_location(const Program& p, const Inst& in);
// For the instruction at pc of f when it was inlined from another function:
// the outermost call site (the line in f's own CUDA function).
std::optional<SourceLine> inlined_call_site(const Function& f, uint32_t pc);
// "vector_add.cu:12" (the file's last path component; full_path keeps it
// as written). Empty for a line whose file is out of range.
std::string format_source_line(const Program& p, const SourceLine& l, bool full_path = false);
// Both in one: "vector_add.cu:12", or "helpers.cuh:3 inlined at
// vector_add.cu:12"; empty when the instruction has no source location.
std::string describe_source(const Program& p, const Function& f, uint32_t pc, bool full_path = false);

uint32_t type_size(Type t);      // bytes; 0 for None/Pred
bool type_is_float(Type t);
bool type_is_signed(Type t);
const char* type_name(Type t);   // ".f32"

}  // namespace softgpu::program

// The IR emitter for one block: the block's frame (BlockCtx fields), each
// instruction's guard, handler calls, and the operand helpers the native
// lowerings use. Lane values are <32 x iN> / <32 x float|double> vectors;
// register rows are <32 x i64> in memory, written with the lane mask.
#pragma once
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "exec/warp.h"

namespace softgpu::jit {

// How a register's low bits read as a lane value, and how a result is
// written back (exec/lanes.h: signed integers sign-extend, the rest zero-extend).
struct LaneType {
  enum Kind : uint8_t { Int, F32, F64 } kind = Int;
  bool is_signed = false;
  uint32_t bits = 64;
  bool valid = false;
};
// The lane type of a PTX type (b-types unsigned); invalid for others.
LaneType lane_type(program::Type t);
inline LaneType int_type(uint32_t bits, bool is_signed) { return {LaneType::Int, is_signed, bits, true}; }

struct BlockRange;  // jit/lower.h

inline bool is_int(const LaneType& t) { return t.valid && t.kind == LaneType::Int; }
inline bool is_float(const LaneType& t) { return t.valid && t.kind != LaneType::Int; }
// True if every modifier as written is one of the instruction's types or in
// `allowed`: a form with anything else (.cc, .sat, .s16x2, .relu, ...) keeps
// its handler (lower_alu.cpp).
bool only_mods(const program::Inst& in, std::initializer_list<std::string_view> allowed);

// True if a global ld/st's modifiers change nothing here (lower_mem.cpp).
bool plain_global_mods(const program::Inst& in);

class Emitter {
 public:
  Emitter(llvm::LLVMContext& c, llvm::Module& m, const std::string& name, const program::Function& f);

  // Each block's code is emitted twice: for a full warp (every lane
  // active, so unguarded stores are plain stores the optimizer can forward)
  // and for any mask; uniform branches keep to their variant.
  void make_blocks(size_t n);
  void dispatch(const std::vector<BlockRange>& blocks);  // the entry: *pc -> its block
  void begin_block(size_t i, bool full);
  void begin_inst(const program::Inst& in);  // computes the guard mask, skips on an empty one
  void end_inst();
  // Calls the handler; `k` = the instruction's index in its block.
  void call_handler(const program::Inst& in, uint32_t pc, exec::ExecFn fn, uint32_t k);
  // Block ends: `len` instructions ran. A block index of -1: no block there.
  void fall_through(uint32_t next_pc, uint32_t len, int next_block);
  void branch(const program::Inst& bra, uint32_t pc, uint32_t len, int target_block, bool backward,
              int next_block);

  // Emits the instruction as IR; false (having emitted nothing) when it is
  // not one the lowering covers (lower_alu.cpp, lower_mem.cpp).
  bool lower_native(const program::Inst& in);
  // The instruction being lowered: its pc, handler and count in the block
  // (for lowerings with a fast path that fall back to the handler).
  void set_current(uint32_t pc, exec::ExecFn fn, uint32_t k) { cur_pc_ = pc; cur_fn_ = fn; cur_count_ = k; }
  // A lowering could not express what it needed: the function is not used.
  bool failed() const { return failed_; }
  // After the last block: marks the accesses of the warp's registers, of
  // its predicates and of shared and global memory as disjoint (scoped
  // alias metadata), so that a store to memory does not make the optimizer
  // reload register values or keep loop-invariant ones in the loop.
  void annotate_aliasing();
  // In the any-mask copy, before instruction `pc`: continues in the block
  // the full copy's fallbacks for that instruction branch to (if any).
  void enter_any(uint32_t pc);

 private:
  bool lower_mov(const program::Inst& in);
  bool lower_int(const program::Inst& in);
  bool lower_shift(const program::Inst& in);
  bool lower_logic(const program::Inst& in);
  bool lower_setp(const program::Inst& in);
  bool lower_selp(const program::Inst& in);
  bool lower_float(const program::Inst& in);
  bool lower_cvt(const program::Inst& in);
  // lower_math.cpp: float conversions, integer div/rem, float div, rcp,
  // sqrt, rsqrt and the .approx special functions.
  bool lower_cvt_float(const program::Inst& in);
  bool lower_cvt_half(const program::Inst& in);
  bool lower_divrem(const program::Inst& in);
  bool lower_fdiv(const program::Inst& in);
  bool lower_root(const program::Inst& in);
  bool lower_special(const program::Inst& in);
  bool lower_minmax(const program::Inst& in);
  bool lower_shared(const program::Inst& in);
  bool lower_param(const program::Inst& in);
  bool lower_cvta(const program::Inst& in);
  bool lower_pred_logic(const program::Inst& in);
  bool lower_global(const program::Inst& in);
  bool lower_vector_mem(const program::Inst& in);  // ld/st.v2/.v4, shared and global (lower_vec.cpp)
  // The gather or scatter of a checked ld/st at lane addresses `addr`
  // (offsets from `host_base`, or host addresses when it is null).
  void memory_access(const program::Inst& in, llvm::Value* addr, llvm::Value* mv, llvm::Value* host_base);
  // Where a native lowering goes when its fast path does not apply: in the
  // full copy, the any-mask copy of this instruction (its handler, then the
  // rest of the block there), so that the fast path never merges with a
  // handler call and register values stay in SSA across instructions; in
  // the any-mask copy, a handler call that rejoins at `done`.
  llvm::BasicBlock* fallback(llvm::BasicBlock* done);
  // ld/st through the address register's lanes `base` plus `imm`, for
  // lane patterns of a half warp (every active lane of each half at one
  // address, or at consecutive elements): scalar checks of each half's
  // extent (`shared`: this CTA's shared memory; else global memory, by the
  // arena's chunk flags), then scalar or half-warp vector accesses.
  // Branches to `generic` when neither pattern holds or a check fails, to
  // `done` after the access.
  void patterned_access(const program::Inst& in, llvm::Value* base, int64_t imm, bool shared,
                        llvm::BasicBlock* generic, llvm::BasicBlock* done);
  llvm::Value* every_active(llvm::Value* eq);  // every active lane's bit of the <32 x i1> is set
  llvm::Value* first_lane(int half);          // i32 index of the half's first active lane (its last if none)
  llvm::Value* halves(llvm::Value* a, llvm::Value* b);  // lanes 0-15: a, 16-31: b
  // True if global [lo, lo + bytes), inside the arena, is memory the warp
  // may access without the checked path, as Warp::in_cached_range decides
  // from the chunk flags; a range outside the arena branches to `outside`
  // (the handler then decides, for pinned and registered host memory).
  llvm::Value* global_ok(llvm::Value* lo, llvm::Value* bytes, bool write, llvm::BasicBlock* outside);
  llvm::Value* region_ok(llvm::Value* lo0, llvm::Value* lo1, uint64_t extent, uint32_t size, bool shared,
                         bool write, llvm::BasicBlock* outside);

  // Operands.
  bool plain_source(const program::Operand& o) const;  // an operand src_bits can read
  llvm::Value* src_bits(const program::Operand& o);    // <32 x i64>, as Warp::src gives it
  llvm::Value* narrow(llvm::Value* bits, LaneType t);
  llvm::Value* widen(llvm::Value* v, LaneType t);
  llvm::Value* src(const program::Operand& o, LaneType t) { return narrow(src_bits(o), t); }
  void store_bits(const program::Operand& d, llvm::Value* bits);
  void store(const program::Operand& d, llvm::Value* v, LaneType t) { store_bits(d, widen(v, t)); }
  bool pred_source(const program::Operand& o) const;
  llvm::Value* pred_value(const program::Operand& o);      // i32 lane mask, negation applied
  void set_pred(const program::Operand& o, llvm::Value* v);  // under the instruction's mask
  llvm::Value* mask_vec();                                  // the mask as <32 x i1>
  llvm::Value* row(uint32_t slot);
  llvm::Value* splat(llvm::Type* elem, uint64_t bits);
  llvm::Value* ftz(llvm::Value* v);    // f32 subnormals to signed zero
  llvm::Value* canon(llvm::Value* v);  // NaN to the canonical NaN
  void exit_at(uint32_t pc, uint32_t add);                 // *pc = pc, return the count + add
  void ret(llvm::Value* count);
  void go(uint32_t pc, uint32_t add, int block, bool backward, uint32_t back_exit_pc, uint32_t back_add);

  llvm::LLVMContext& C;
  llvm::Module& M;
  llvm::IRBuilder<> B;
  const program::Function& pf_;
  llvm::Function* fn_ = nullptr;
  llvm::Type *i1_, *i8_, *i16_, *i32_, *i64_, *f32_, *f64_, *ptr_;
  llvm::Value* ctx_ = nullptr;
  llvm::Value *regs_, *preds_, *pcp_, *warp_, *shared_, *shared_size_, *active_, *params_, *tid_, *ids_;
  llvm::Value* active_loaded_ = nullptr;
  llvm::Value *reconv_ = nullptr, *converged_ = nullptr, *count_ = nullptr, *back_ = nullptr;
  std::vector<llvm::BasicBlock*> blocks_[2];  // [full, any mask][block]
  bool full_ = true;
  llvm::Value* bufs_[4] = {};
  unsigned next_buf_ = 0;
  llvm::FunctionCallee exec_fn_, src_fn_, special_fn_;
  llvm::Value* fbuf_ = nullptr;  // [32 x float] for softgpu_jit_special
  llvm::Value* mask_ = nullptr;
  llvm::Value* mask_vec_ = nullptr;
  llvm::BasicBlock* next_bb_ = nullptr;
  uint32_t cur_pc_ = 0, cur_count_ = 0;
  exec::ExecFn cur_fn_ = nullptr;
  bool failed_ = false;
  llvm::Value* arena_[3] = {};  // the warp's ArenaView: base, size, flags (loaded at the entry)
  std::vector<llvm::BasicBlock*> any_entry_;  // by pc: where the full copy falls back to (or null)
};

}  // namespace softgpu::jit

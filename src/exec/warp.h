// Per-warp and per-CTA execution state of the functional executor.
#pragma once
#include <algorithm>
#include <atomic>
#include <bit>
#include <optional>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/compiled.h"
#include "exec/engine.h"
#include "exec/listener.h"
#include "exec/lanes.h"
#include "program/program.h"

namespace softgpu::exec {

using program::Function;
using program::Inst;
using program::Operand;
using program::Program;

class Warp;
// An instruction's semantics, bound at load time to its types and modifiers.
using ExecFn = void (*)(Warp& w, const Inst& in, uint32_t mask);

// What load_program builds: the decoded program plus each instruction's bound handler.
class LoadedProgram {
 public:
  Program prog;
  std::vector<std::vector<ExecFn>> fns;  // [function][pc]
  std::vector<KernelInfo> kernels;
  std::vector<VariableInfo> variables;
  std::vector<DeviceAddr> owned;  // allocations to release on unload
  // Compiled code by function (ExecOptions::compiler), kept with the
  // program; last, so that it is destroyed first (queued compilations
  // read the members above).
  mutable ProgramCode jit;
};

// Everything the CTAs of one launch share.
// Stack a call uses besides its .local frame (return address, saved state).
inline constexpr uint32_t kCallFrameBytes = 16;

struct LaunchState {
  const LoadedProgram* lp = nullptr;
  const Function* kernel = nullptr;
  uint32_t kernel_index = 0;
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  uint32_t shared_bytes = 0;  // per CTA: static layout + dynamic
  uint32_t local_limit = 0;   // local memory per thread: kernel frame + call stack (<= 512 KB)
  uint32_t reserved_smem = 0; // offset of the reserved region after them (0: none, see program.h)
  const std::byte* params = nullptr;  // kernel parameter buffer
  uint64_t params_addr = 0;           // its address (registered for generic loads)
  // Global memory a kernel may reach: the arena's mapped chunks, and the
  // regions outside it (pinned, registered, this launch's parameter buffers).
  uint64_t arena_base = 0, arena_size = 0;
  const std::atomic<uint8_t>* arena_flags = nullptr;
  AllocationSnapshot external;
  const ExecOptions* opts = nullptr;
  std::atomic<bool> abort{false};
  std::atomic<uint64_t> warp_instructions{0};
  std::atomic<uint64_t> thread_instructions{0};
  std::chrono::steady_clock::time_point start;
  double start_cpu = 0;  // process_cpu_seconds() at the start (the tier decision, exec/compiled.cpp)
  std::mutex mu;  // guards fault and printf
  std::optional<Fault> fault;
  std::string printf_buffer;
  uint64_t printf_fifo_used = 0;  // bytes of printf records so far (see printf.cpp)
  DeviceMemory* memory = nullptr;
  Dim3 cluster;                  // cluster shape (1x1x1 when the launch has none)
  bool explicit_cluster = false;
  uint64_t grid_workspace = 0;   // cooperative launches: grid-sync workspace, read via %envreg1/2
  DeviceHeap* heap = nullptr;    // device malloc heap (programs that call malloc/free)
  // Compiled code (exec/compiled.cpp): warps bind lp->jit.published when
  // `jit`; the kernel is compiled once the launch's instructions plus
  // `jit_before` reach `jit_threshold` (jit_asked: requested), or, with
  // `jit_cost` (no ExecOptions::jit_hot), when worth_compiling says so of
  // the interpreted seconds spent (`jit_spent_before` plus this launch's
  // process CPU time) and projected, against `jit_instructions`
  // (what of the closure is left to compile) x `jit_seconds_per_instruction`.
  bool jit = false;
  bool jit_cost = false;
  uint64_t jit_before = 0, jit_threshold = 0;
  std::atomic<bool> jit_asked{false};
  double jit_spent_before = 0, jit_seconds_per_instruction = 0;
  uint64_t jit_instructions = 0;
  uint32_t jit_threads = 1;  // host threads running the launch
  std::atomic<uint64_t> compiled_instructions{0};  // of warp_instructions, run by compiled blocks
  // Progress and watchdog (exec/monitor.cpp).
  uint64_t total_ctas = 0;
  std::atomic<uint64_t> ctas_done{0};
  bool progress = false;         // show the progress line once it is due
  bool progress_shown = false;   // a line is on screen (guarded by mu)
  double progress_next = 0;      // seconds since start of the next update (guarded by mu)
  double progress_last_secs = 0;
  uint64_t progress_last_instructions = 0;

  // Records the first fault and stops the launch.
  void report(Fault f);
};

struct Cta;
// wgmma.mma_async operations in flight, per warpgroup (exec/ops_wgmma.cpp).
struct WgmmaState;
struct WgmmaStateDeleter {
  void operator()(WgmmaState* s) const;
};
// The CTAs of one thread-block cluster, run interleaved on one host thread.
struct Cluster {
  std::vector<Cta*> ctas;   // by rank
  Dim3 id;                  // %clusterid
  uint32_t arrived = 0;     // threads arrived at barrier.cluster in the current phase
  uint64_t phase = 0;       // completed barrier.cluster phases
};

// Shared-memory addresses name another CTA of the cluster by rank+1 in the
// bits above kClusterRankShift (0 there = the executing CTA): mapa builds
// such addresses, translate decodes and bounds-checks them.
inline constexpr uint32_t kClusterRankShift = 24;
inline constexpr uint64_t kClusterOffsetMask = (1ull << kClusterRankShift) - 1;

// One block of threads. Warps switch at barriers; shared memory lives here.
struct Cta {
  Dim3 ctaid;
  Cluster* cluster = nullptr;
  uint32_t cluster_rank = 0;
  Dim3 cluster_ctaid;       // position inside the cluster
  uint32_t linear = 0;
  uint32_t nthreads = 0;
  std::vector<std::byte> shared;
  struct Barrier {
    uint32_t arrived = 0;      // threads that passed a bar.arrive in this phase (exec/launch.cpp)
    uint32_t expected = 0;
    uint32_t red_count = 0;    // bar.red accumulators
    bool red_and = true, red_or = false;
  };
  Barrier barriers[16];
  void* listener_ctx = nullptr;  // what ExecutionListener::cta_begin returned
  // The CTA's warps by warp id (set by the scheduler, exec/launch.cpp):
  // a warpgroup operation writes the registers of all four of its warps.
  std::vector<std::unique_ptr<Warp>>* warps = nullptr;
  // Created by the first wgmma.mma_async of the CTA.
  std::unique_ptr<WgmmaState, WgmmaStateDeleter> wgmma;
};

struct SimtEntry {
  uint32_t pc;
  uint32_t reconv;
  uint32_t mask;
};

struct Frame {
  uint32_t fn = 0;           // function index
  uint32_t reg_base = 0;     // first register slot of this frame (x32 lanes)
  uint32_t pred_base = 0;
  uint32_t local_base = 0;   // per-thread local offset of this frame
  uint32_t param_base = 0;   // byte offset of this frame's per-lane param area (x32 lanes)
  uint32_t simt_base = 0;    // SIMT stack depth when the frame was entered
  uint32_t call_site = 0;    // caller's CallSite index (for return values)
  uint32_t call_mask = 0;    // lanes that made the call
};

// AtClusterBarrier: in barrier.cluster.wait until the cluster's phase passes cl_phase.
// AtWgmmaWait: in wgmma.wait_group until the warpgroup's operations it waits
// for have been issued by all four warps (exec/ops_wgmma.cpp releases it).
enum class WarpState : uint8_t { Ready, AtBarrier, AtClusterBarrier, AtWgmmaWait, Done };

// The arena's range and chunk flags as a warp keeps them for its hot
// paths; compiled code reads them at Warp::arena_view_offset() to check
// global accesses as in_cached_range does (src/jit/lower_mem.cpp).
struct ArenaView {
  uint64_t base = 0, size = 0;
  const std::atomic<uint8_t>* flags = nullptr;
};
static_assert(sizeof(ArenaView) == 24, "ArenaView layout is read by compiled code (src/jit/lower_mem.cpp)");

class Warp {
 public:
  // Where a Warp holds its ArenaView (bytes from the Warp's address).
  static size_t arena_view_offset();

  Warp(LaunchState& L, Cta& cta, uint32_t warp_id, uint32_t nlanes);
  ~Warp() {
    if (compiled_ran_) L_.compiled_instructions.fetch_add(compiled_ran_, std::memory_order_relaxed);
  }
  Warp(const Warp&) = delete;
  Warp& operator=(const Warp&) = delete;
  // Makes this warp (of the same launch, finished) warp `warp_id` of
  // `cta`, in the state a new Warp starts in, reusing its heap storage as
  // capacity only (every register starts at zero): a host thread's next
  // CTAs then start without touching the heap (exec/launch.cpp, Spares).
  // Whoever adds a member resets it here.
  void restart(Cta& cta, uint32_t warp_id, uint32_t nlanes);

  // Runs until the warp finishes, waits at a barrier, spins (see spinning()),
  // or has run `budget` instructions. Returns the warp instructions executed.
  uint64_t run(uint64_t budget);
  // The last run() stopped because the warp spins in a loop that waits on
  // memory (its state did not change over an iteration) and none of its
  // other lanes could run instead: it waits on another warp or CTA.
  bool spinning() const { return spinning_; }

  WarpState state = WarpState::Ready;
  uint32_t carry = 0;  // CC.CF per lane, written by .cc arithmetic, read by addc/subc/madc
  // Barrier arrival, read by the CTA scheduler (exec/cta.cpp).
  uint32_t bar_id = 0;
  uint32_t bar_expected = 0;   // thread count operand, 0 = every live thread of the CTA
  uint32_t bar_threads = 0;    // threads this warp contributes
  bool bar_arrive_only = false;
  uint32_t red_popc = 0;
  bool red_all = true, red_any = false;
  Operand red_dst;             // bar.red destination, None otherwise
  uint64_t cl_phase = 0;       // cluster phase of this warp's last barrier.cluster.arrive
  // Called by the scheduler when the barrier completes.
  void finish_barrier(uint32_t popc_total, bool all, bool any);
  uint32_t live_threads() const { return lane_count(valid_ & ~exited_); }

  // What compiled code starting at the SIMT top's pc gets (exec/compiled.h).
  BlockCtx block_ctx(uint32_t active);
  // Compiled code calling the bound handler of the current function's
  // instruction at `pc` for the lanes in `mask`.
  void run_handler(uint32_t pc, uint32_t mask) { (*fns_)[pc](*this, fn_->code[pc], mask); }

  // ---- operand access for handlers ----
  const Function& fn() const { return *fn_; }
  uint64_t* reg(uint32_t slot) { return &regs_[size_t(frame_->reg_base + slot) * kWarpSize]; }
  // Register slots counted from the warp's first frame: a slot of the
  // current frame is frame_reg_base() + slot. reg_abs is null past the
  // registers the warp holds now (a frame that has returned).
  uint32_t frame_reg_base() const { return frame_->reg_base; }
  uint64_t* reg_abs(uint32_t abs) {
    return abs + 1 <= reg_top_ ? &regs_[size_t(abs) * kWarpSize] : nullptr;
  }
  uint32_t& pred(uint32_t slot) { return preds_[frame_->pred_base + slot]; }
  // The 32 lane values of a source operand. Registers are returned in place;
  // immediates and special registers are materialized into scratch.
  const uint64_t* src(const Operand& o, uint64_t* scratch);
  // Destination row for a register operand (nullptr for a sink).
  uint64_t* dst(const Operand& o) { return o.kind == Operand::Kind::Reg ? reg(o.reg) : nullptr; }
  // Predicate source as a lane mask (with negation applied).
  uint32_t pred_value(const Operand& o);
  void set_pred(const Operand& o, uint32_t value, uint32_t mask);
  // Value of a vector element operand.
  const Operand& vec_elem(const Operand& v, uint32_t i) const { return fn_->vec_operands[v.vec_begin + i]; }

  // ---- memory ----
  // Effective address of an Addr operand for a lane, in the operand's state space.
  uint64_t address(const Operand& o, uint32_t lane, const uint64_t* base_vals) const;
  // Translates (space, address) to host memory, or reports a fault and returns nullptr.
  std::byte* translate(ptx::Space space, uint64_t addr, uint32_t size, uint32_t lane, bool write);
  // True while a listener records this instruction's accesses: handlers
  // then take the checked path (translate) for every lane.
  bool tracing() const { return tracing_; }
  // Records a lane's access that does not go through translate (kernel parameters).
  void note_access(ptx::Space space, uint64_t addr, uint32_t size, uint32_t lane, bool write) {
    if (tracing_) accesses_.push_back({addr, size, uint8_t(lane), space, write});
  }
  // Records a lane's mbarrier update or wait (WarpStep::sync) while tracing.
  void note_sync(const SyncEvent& e) {
    if (tracing_) syncs_.push_back(e);
  }
  ptx::Space generic_space(uint64_t addr) const;
  // True if [addr, addr+size) is aligned and in arena chunks that are mapped
  // and already touched (and not constant, for a write), or inside the
  // external region this warp used last: lets handlers skip translate.
  bool in_cached_global(uint64_t addr, uint32_t size, bool write) const {
    if (addr & (std::min<uint32_t>(size, 16) - 1)) return false;
    return in_cached_range(addr, size, write);
  }
  // The same for [addr, addr+bytes) without the alignment rule; exact for
  // ranges up to an arena chunk (they touch at most two chunks).
  bool in_cached_range(uint64_t addr, uint64_t size, bool write) const {
    const uint64_t off = addr - arena_.base;
    if (off < arena_.size && size <= arena_.size - off) {
      const uint8_t a = arena_.flags[off >> Arena::kChunkShift].load(std::memory_order_relaxed);
      const uint8_t b = arena_.flags[(off + size - 1) >> Arena::kChunkShift].load(std::memory_order_relaxed);
      constexpr uint8_t kNeed = Arena::kMapped | Arena::kTouched;
      return (a & b & kNeed) == kNeed && !(write && ((a | b) & Arena::kConst));
    }
    const Allocation* e = last_ext_;
    return e && addr - e->base < e->size && size <= e->size - (addr - e->base);
  }
  // A lane's bytes in the current frame's parameter area (function params,
  // return values, call-site params), or nullptr after reporting a fault.
  std::byte* param_ptr(uint32_t lane, uint64_t offset, uint32_t size);

  // ---- faults ----
  // `preamble` goes before the report (a device assert's own lines).
  void fault(Status s, uint32_t lane, uint64_t addr, const std::string& what, const std::string& preamble = {});
  bool faulted() const { return faulted_; }

  // ---- identity ----
  uint32_t warp_id() const { return warp_id_; }
  uint32_t lane_tid(uint32_t lane, int dim) const { return tid_[dim][lane]; }
  const Cta& cta() const { return *cta_; }
  Cta& cta() { return *cta_; }
  LaunchState& launch() { return L_; }
  uint32_t exited() const { return exited_; }
  uint32_t valid_lanes() const { return valid_; }
  uint32_t current_pc() const { return simt_.empty() ? 0 : simt_.back().pc; }

  // Dynamic stack allocation (alloca): `bytes` more local memory per thread
  // at the given alignment, freed when the frame returns. Returns the local
  // address, or UINT64_MAX after reporting a fault. stack_top/set_stack_top
  // implement stacksave/stackrestore.
  uint64_t stack_alloc(uint64_t bytes, uint64_t align, uint32_t lane);
  uint64_t stack_top() const { return local_top_; }
  void set_stack_top(uint64_t top, uint32_t lane);

  // Device printf: formats one lane's vprintf call into the launch buffer.
  void device_printf(uint64_t fmt_addr, uint64_t args_addr, uint32_t lane);
  // Device assert (__assertfail): the line hardware prints for one failing
  // lane, or empty after reporting a fault reading its strings.
  std::string assert_line(uint64_t msg, uint64_t file, uint32_t line, uint64_t func, uint32_t lane);
  // A NUL-terminated device string (at most `limit` bytes); false after a fault.
  bool read_cstring(uint64_t addr, size_t limit, uint32_t lane, std::string& out);

 private:
  void push_frame(uint32_t fn_index, uint32_t mask, uint32_t call_site);
  void pop_frame();
  // Zeroes the first `count` register rows from `base` that f may read
  // before writing them (all of them when f was not analysed).
  void clear_rows(const Function& f, uint32_t base, uint32_t count);
  // One instruction, or one compiled block; adds what it ran to n. False
  // when the warp stops running.
  bool step(uint64_t& n);
  bool execute(const Inst& in, SimtEntry& top, uint32_t pc, uint32_t active, uint32_t mask);
  // With a listener: the instruction's record, from what translate saw.
  void report_step(const Function& f, uint32_t pc, const Inst& in, uint32_t active, uint32_t mask);
  void exec_branch(const Inst& in, uint32_t active, uint32_t taken);
  void exec_call(const Inst& in, uint32_t mask);
  void exec_builtin(const Function& callee, const Inst& in, uint32_t mask);
  void exec_barrier(const Inst& in, uint32_t mask);
  // Independent thread scheduling (exec/its.cpp): forward progress for lanes
  // of a diverged warp while others spin.
  void note_back_branch(uint32_t pc);
  bool its_yield();
  bool its_sync_point(const Inst& in);
  uint32_t sync_members(const Inst& in, uint32_t mask, uint32_t* per_lane = nullptr);
  bool its_blocked(const SimtEntry& e, uint32_t live_lanes);
  uint64_t state_hash() const;
  uint64_t sreg(program::Sreg s, uint32_t lane) const;

  LaunchState& L_;
  Cta* cta_;
  uint32_t warp_id_;
  uint32_t valid_;      // lanes that exist (last warp of a CTA may be partial)
  uint32_t tid_warp_ = UINT32_MAX;  // the warp id tid_ was computed for
  uint32_t exited_ = 0;
  bool faulted_ = false;
  bool stop_after_step_ = false;  // a listener ends the launch after this instruction (stop_launch)
  ArenaView arena_;  // copies of the launch's, for the hot path
  const Allocation* last_ext_ = nullptr;  // external-region lookup cache (see translate)
  // Accesses of the current instruction, recorded by translate while a
  // listener is set (tracing_); none otherwise.
  struct Access {
    uint64_t addr;
    uint32_t size;
    uint8_t lane;
    ptx::Space space;
    bool write;
  };
  bool tracing_ = false;
  std::vector<Access> accesses_;
  std::vector<SyncEvent> syncs_;
  // While tracing: the instruction's pc and membermask union (WarpStep), and
  // the buffer a suppressed access reads zeros from and writes into
  // (ExecutionListener::check_access).
  uint32_t trace_pc_ = 0, trace_sync_mask_ = 0;
  uint32_t trace_members_[kWarpSize] = {};  // each executing lane's membermask (WarpStep::member_masks)
  std::vector<std::byte> suppressed_;
  std::byte* checked(ptx::Space space, bool generic, uint64_t addr, uint32_t size, uint32_t lane, bool write);
  bool global_mapped(uint64_t addr, uint32_t size) const;
  Cta* shared_target(uint64_t addr, uint64_t& offset) const;
  HeapEvent& heap_site(HeapEvent& e, uint32_t lane) const;
  uint32_t tid_[3][kWarpSize];
  uint32_t ids_[9];  // %ntid, %ctaid, %nctaid (x, y, z each), for compiled code (BlockCtx::ids)
  // Register rows; the frames use the first reg_top_ (regs_ only grows, so
  // that reused rows are not cleared: push_frame zeroes those a frame may
  // read unwritten).
  std::vector<uint64_t> regs_;
  uint32_t reg_top_ = 0;
  std::vector<uint32_t> preds_;
  std::vector<std::byte> params_;  // per-lane parameter areas of all frames
  std::vector<std::byte> local_[kWarpSize];
  uint32_t local_top_ = 0;         // bytes of local memory in use (same for every lane)
  bool local_used_ = false;        // some lane's local memory grew since it was last emptied
  std::vector<Frame> frames_;
  std::vector<SimtEntry> simt_;
  // Spin detection (exec/its.cpp).
  bool spinning_ = false;
  uint32_t spun_ = 0;              // lanes seen spinning (its_yield runs others first)
  uint64_t back_branches_ = 0;     // backward branches taken, for sampling
  uint64_t spin_next_ = 1024;      // the next sample: compare this one and the next
  bool spin_armed_ = false;        // a sample was taken: the next backward branch compares
  uint32_t spin_interval_ = 1024;
  uint64_t compiled_ran_ = 0;  // warp instructions compiled blocks ran
  uint32_t spin_pc_ = 0;
  size_t spin_depth_ = 0;
  uint64_t spin_hash_ = 0;
  uint32_t diverged_back_ = 0;     // backward branches while diverged at one stack depth
  size_t diverged_depth_ = 0;
  const Function* fn_ = nullptr;
  Frame* frame_ = nullptr;
  const std::vector<ExecFn>* fns_ = nullptr;
  const CompiledCode* code_ = nullptr;  // the frame's compiled blocks (null: interpret)
  void bind_frame_code(uint32_t fn_index) {
    code_ = L_.jit ? L_.lp->jit.published[fn_index].load(std::memory_order_acquire) : nullptr;
  }
};

// Sets up the launch's compiled code (exec/compiled.cpp): compiles the
// kernel and its direct callees now when ExecOptions::jit_hot is 0 (or the
// cost rule says so already), else sets what jit_progress weighs.
void bind_compiled_code(LaunchState& L, uint32_t kernel);
// At the launch's end: adds its instructions and host-thread seconds to the
// kernel's history.
void jit_launch_end(LaunchState& L, uint64_t total);
// Queues (or runs) the kernel's compilation, once per launch.
void request_compile(LaunchState& L);
// The cost rule's decision for the launch so far (exec/compiled.cpp).
bool jit_cost_says_compile(const LaunchState& L);
// Called with the launch's warp instructions so far (exec/monitor.cpp).
inline void jit_progress(LaunchState& L, uint64_t total) {
  if (!L.jit || L.jit_asked.load(std::memory_order_relaxed)) return;
  if (L.jit_cost ? jit_cost_says_compile(L) : L.jit_before + total >= L.jit_threshold) request_compile(L);
}

// shfl/vote/match/redux/elect (.sync) and bar.warp.sync (exec/its.cpp).
bool is_warp_sync(const Inst& in);

// Registers handler binders; implemented in the handler files.
using BindFn = ExecFn (*)(const Inst& in);
struct HandlerTable {
  BindFn bind[size_t(isa::Opcode::Count_)] = {};
};
const HandlerTable& handler_table();
void register_integer_handlers(HandlerTable& t);
void register_float_handlers(HandlerTable& t);
void register_convert_handlers(HandlerTable& t);
void register_memory_handlers(HandlerTable& t);
void register_warp_handlers(HandlerTable& t);
void register_tensor_handlers(HandlerTable& t);   // wmma, mma, ldmatrix, stmatrix
void register_wgmma_handlers(HandlerTable& t);    // wgmma.*, setmaxnreg
void register_async_handlers(HandlerTable& t);    // cp.async, mbarrier, f16/bf16 atomics
void register_texture_handlers(HandlerTable& t);  // tex, suld, sust
void register_tensormap_handlers(HandlerTable& t);  // tensormap.replace, tensormap.cp_fenceproxy
// TMA (exec/ops_tma.cpp): cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
// cp.async.bulk.prefetch.tensor; reached through cp's binder.
ExecFn bind_cp_tensor(const Inst& in);
// mbarrier complete_tx of `bytes` on the object at `p` (exec/ops_async.cpp);
// false after reporting a fault.
bool mbarrier_complete_tx(Warp& w, std::byte* p, uint32_t lane, uint32_t bytes, const char* what);
// One f32/f16/bf16 element at p updated atomically as atom/red would
// (exec/ops_async.cpp; add, min, max).
void atomic_float_element(program::AtomOp op, std::byte* p, uint32_t bits, program::Type t);
// Extended-precision arithmetic through the carry flag (add.cc, addc, ...).
ExecFn bind_carry(const Inst& in);
// Cluster and stack instructions (exec/warp.cpp): mapa. Binders for
// alloca/stacksave/stackrestore are ready for when the ISA lists them.
void register_coop_handlers(HandlerTable& t);
ExecFn bind_mapa(const Inst& in);
ExecFn bind_alloca(const Inst& in);        // alloca.u32/u64 d, size{, align}
ExecFn bind_stacksave(const Inst& in);     // stacksave.u32/u64 d
ExecFn bind_stackrestore(const Inst& in);  // stackrestore.u32/u64 a

}  // namespace softgpu::exec

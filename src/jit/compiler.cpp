// The LLVM side: one ORC LLJIT for the host CPU, one IR module per
// compiled function, optimized and compiled to an object file (or that
// object taken from the on-disk cache, jit/cache.h), linked into the JIT
// and freed with the last program using it. Identical functions (the same
// IR) share their machine code within the process.
#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "common/cpu_time.h"
#include "jit/cache.h"
#include "jit/helpers.h"
#include "jit/jit.h"
#include "jit/lower.h"

namespace softgpu::jit {

namespace orc = llvm::orc;

namespace {

constexpr uint32_t kMaxCompiledInstructions = 2000;

// Bumped when what a cache entry holds changes meaning.
constexpr const char* kCacheFormat = "softgpu-jit-1";

struct Machine;

struct JitState {
  std::unique_ptr<orc::LLJIT> jit;
  std::optional<orc::JITTargetMachineBuilder> jtmb;  // for code generation outside the JIT's own layers
  std::string salt;  // what the code depends on besides the IR (cache keys)
  std::optional<DiskCache> disk;
  std::mutex mu;  // the JIT's dylib, `loaded`
  std::unordered_map<std::string, std::weak_ptr<Machine>> loaded;  // by key
  std::unordered_set<std::string> hints;  // of the functions this process compiled or loaded
  std::atomic<uint64_t> compiled{0}, from_disk{0}, reused{0};
  std::atomic<uint64_t> lowered{0}, through_handlers{0};  // instructions, over all compiled functions
  // Compilations by LLVM (not from a cache): their PTX instructions and
  // seconds (lowering to the link), for seconds_per_instruction; under mu.
  uint64_t measured_instructions = 0;
  double measured_seconds = 0;
};

// One function's machine code in the JIT; removing its resource tracker
// frees it.
struct Machine {
  std::shared_ptr<JitState> st;
  orc::ResourceTrackerSP rt;
  exec::BlockFn fn = nullptr;
  ~Machine() {
    if (!rt) return;
    std::lock_guard lock(st->mu);
    llvm::consumeError(rt->remove());
  }
};

// A program's function: its blocks' entries into the shared machine code.
class Code final : public exec::CompiledCode {
 public:
  std::shared_ptr<Machine> machine;
};

std::string hex(const std::array<uint8_t, 32>& d) {
  std::string s;
  for (uint8_t b : d) s += fmt::format("{:02x}", b);
  return s;
}

std::string message(llvm::Error e) {
  std::string s;
  llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase& i) { s = i.message(); });
  return s;
}

void optimize(llvm::Module& m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(m, mam);
}

class LlvmCompiler final : public exec::CodeCompiler {
 public:
  LlvmCompiler(std::shared_ptr<JitState> st, JitOptions o) : st_(std::move(st)), opts_(o) {}

  std::shared_ptr<const exec::CompiledCode> compile(const exec::LoadedProgram& lp, uint32_t fn) override {
    return build(lp, fn, false);
  }

  // Only when a compilation of the same function was stored (its hint) is
  // it lowered and its key looked up; nothing is compiled here.
  std::shared_ptr<const exec::CompiledCode> cached(const exec::LoadedProgram& lp, uint32_t fn) override {
    const std::string h = hint(lp.prog.functions[fn]);
    bool seen;
    {
      std::lock_guard lock(st_->mu);
      seen = st_->hints.count(h) > 0;
    }
    if (!seen && !(st_->disk && st_->disk->has_hint(h))) return nullptr;
    return build(lp, fn, true);
  }

  double seconds_per_instruction() const override {
    std::lock_guard lock(st_->mu);
    if (!st_->measured_instructions) return exec::kDefaultCompileSecondsPerInstruction;
    return st_->measured_seconds / double(st_->measured_instructions);
  }

  const JitState& state() const { return *st_; }

 private:
  // A hash of what the function's lowering reads of it (its instructions,
  // operands and sizes) and of the salt: a hint, not a key.
  std::string hint(const program::Function& f) const {
    std::string b = st_->salt + f.name;
    auto put = [&](const auto& v) { b.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(f.num_regs);
    put(f.num_preds);
    put(f.local_bytes);
    put(f.param_bytes);
    for (const program::Inst& in : f.code) {
      put(in.op), put(in.type), put(in.type2), put(in.nops), put(in.has_guard), put(in.guard_neg);
      put(in.guard), put(in.target), put(in.reconv), put(in.aux);
      for (const program::Operand& o : in.o)
        put(o.kind), put(o.addr_kind), put(o.negate), put(o.sreg), put(o.vec_n), put(o.reg), put(o.vec_begin),
            put(o.imm);
      for (const std::string& m : in.raw_mods) b += m + ' ';
    }
    for (const program::Operand& o : f.vec_operands) put(o.kind), put(o.reg), put(o.imm);
    return fmt::format("{:016x}", llvm::xxHash64(llvm::StringRef(b)));
  }

  // Compiles function `fn` (or, `only_cached`, takes it from the process or
  // the disk cache, else returns null).
  std::shared_ptr<const exec::CompiledCode> build(const exec::LoadedProgram& lp, uint32_t fn, bool only_cached) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = thread_cpu_seconds();  // the compile's cost for the tier decision: this thread's CPU time
    const program::Function& f = lp.prog.functions[fn];
    const auto& fns = lp.fns[fn];
    // Code generation costs about as much per PTX instruction as running a
    // few thousand warp instructions: very large functions stay interpreted
    // (docs/jit.md).
    if (f.code.size() > kMaxCompiledInstructions) {
      if (opts_.verbose)
        std::fprintf(stderr, "softgpu: jit: '%s' interpreted: %zu instructions, more than the JIT's %u\n",
                     f.name.c_str(), f.code.size(), kMaxCompiledInstructions);
      return nullptr;
    }
    const std::vector<BlockRange> blocks = find_blocks(f, fns);
    if (blocks.empty()) return nullptr;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = std::make_unique<llvm::Module>("softgpu", *ctx);
    mod->setDataLayout(st_->jit->getDataLayout());
    mod->setTargetTriple(st_->jit->getTargetTriple().str());
    LowerStats stats;
    lower_function(*ctx, *mod, "softgpu_fn", f, fns, blocks, stats);
    st_->lowered += stats.native;
    st_->through_handlers += stats.handler;
    if (stats.failed) {
      std::fprintf(stderr, "softgpu: jit: '%s' not compiled (a lowering could not name an operand); it runs "
                   "interpreted\n", f.name.c_str());
      return nullptr;
    }
    std::string err;
    llvm::raw_string_ostream es(err);
    if (llvm::verifyModule(*mod, &es)) {
      // A lowering bug: say so and interpret the function.
      std::fprintf(stderr, "softgpu: jit: '%s' not compiled (invalid IR: %s); it runs interpreted\n", f.name.c_str(),
                   es.str().substr(0, 300).c_str());
      return nullptr;
    }
    // The key: the IR as text (no host addresses in it) and the salt.
    std::string ir;
    {
      llvm::raw_string_ostream os(ir);
      mod->print(os, nullptr);
    }
    llvm::SHA256 sha;
    sha.update(st_->salt);
    sha.update(ir);
    const std::string key = hex(sha.final());
    const std::string sym = "softgpu_" + key.substr(0, 40);
    const char* how = "reused";
    double opt_ms = 0, codegen_ms = 0;  // of a compilation: the IR passes, code generation
    std::shared_ptr<Machine> m = find_loaded(key);
    if (!m) {
      std::optional<std::string> obj = st_->disk ? st_->disk->get(key) : std::nullopt;
      how = obj ? "from the disk cache" : "compiled";
      if (!obj && only_cached) return nullptr;
      if (!obj) {
        mod->getFunction("softgpu_fn")->setName(sym);
        const auto t1 = std::chrono::steady_clock::now();
        optimize(*mod);
        const auto t2 = std::chrono::steady_clock::now();
        orc::ConcurrentIRCompiler cc(*st_->jtmb);
        auto buf = cc(*mod);
        opt_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
        codegen_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t2).count();
        if (!buf) {
          std::fprintf(stderr, "softgpu: jit: '%s' not compiled (%s); it runs interpreted\n", f.name.c_str(),
                       message(buf.takeError()).c_str());
          return nullptr;
        }
        obj = (*buf)->getBuffer().str();
        if (st_->disk) {
          if (st_->disk->put(key, *obj)) st_->disk->put_hint(hint(f));
          else if (opts_.verbose)
            std::fprintf(stderr, "softgpu: jit: cannot write the cache in %s\n", st_->disk->dir().c_str());
        }
      }
      m = add_object(key, sym, *obj, f.name);
      if (!m) return nullptr;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    {
      std::lock_guard lock(st_->mu);
      st_->hints.insert(hint(f));
      if (how[0] == 'c') {
        st_->measured_instructions += f.code.size();
        st_->measured_seconds += thread_cpu_seconds() - cpu0;
      }
    }
    ++(how[0] == 'r' ? st_->reused : how[0] == 'f' ? st_->from_disk : st_->compiled);
    auto code = std::make_shared<Code>();
    code->machine = m;
    code->entry.assign(f.code.size(), nullptr);
    for (const BlockRange& b : blocks) code->entry[b.begin] = m->fn;
    if (opts_.verbose) {
      const std::string split = how[0] == 'c' ? fmt::format(" (IR passes {:.1f} ms, code generation {:.1f} ms)", opt_ms, codegen_ms) : "";
      std::fprintf(stderr, "softgpu: jit: '%s': %zu blocks, %u instructions lowered, %u through handlers, %s, %.1f ms%s\n",
                   f.name.c_str(), blocks.size(), stats.native, stats.handler, how, ms, split.c_str());
    }
    return code;
  }

  std::shared_ptr<Machine> find_loaded(const std::string& key) {
    std::lock_guard lock(st_->mu);
    auto it = st_->loaded.find(key);
    return it == st_->loaded.end() ? nullptr : it->second.lock();
  }

  // Links the object into the JIT (unless another thread did meanwhile).
  // (Should a program be unloading the same function at this moment, its
  // symbol may still be defined: the link fails and the function runs
  // interpreted, with the message below.)
  std::shared_ptr<Machine> add_object(const std::string& key, const std::string& sym, const std::string& obj,
                                      const std::string& fname) {
    std::lock_guard lock(st_->mu);
    if (auto it = st_->loaded.find(key); it != st_->loaded.end())
      if (auto m = it->second.lock()) return m;
    auto m = std::make_shared<Machine>();
    m->st = st_;
    m->rt = st_->jit->getMainJITDylib().createResourceTracker();
    auto fail = [&](llvm::Error e) -> std::shared_ptr<Machine> {
      std::fprintf(stderr, "softgpu: jit: '%s' not compiled (%s); it runs interpreted\n", fname.c_str(),
                   message(std::move(e)).c_str());
      llvm::consumeError(m->rt->remove());
      m->rt = nullptr;
      return nullptr;
    };
    if (auto e = st_->jit->addObjectFile(m->rt, llvm::MemoryBuffer::getMemBufferCopy(obj, sym)))
      return fail(std::move(e));
    auto addr = st_->jit->lookup(sym);
    if (!addr) return fail(addr.takeError());
    m->fn = addr->toPtr<exec::BlockFn>();
    st_->loaded[key] = m;
    return m;
  }

  std::shared_ptr<JitState> st_;
  JitOptions opts_;
};

}  // namespace

bool available() { return true; }

JitStats stats(const exec::CodeCompiler& c) {
  const auto* l = dynamic_cast<const LlvmCompiler*>(&c);
  if (!l) return {};
  return {l->state().compiled.load(), l->state().from_disk.load(), l->state().reused.load(),
          l->state().lowered.load(), l->state().through_handlers.load()};
}

std::unique_ptr<exec::CodeCompiler> make_compiler(const JitOptions& opts, std::string* why) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto fail = [&](std::string m) -> std::unique_ptr<exec::CodeCompiler> {
    if (why) *why = std::move(m);
    return nullptr;
  };
  auto jtmb = orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return fail(message(jtmb.takeError()));
  // The IR is optimized at O2 before code generation; the back end's own
  // optimizations buy little on it and cost most of the compile time.
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Less);
  auto st = std::make_shared<JitState>();
  st->jtmb = *jtmb;
  st->salt = fmt::format("{} llvm {} {} cpu {} features {} O2 codegen-less\n", kCacheFormat, LLVM_VERSION_STRING,
                         jtmb->getTargetTriple().str(), jtmb->getCPU(), jtmb->getFeatures().getString());
  if (!opts.cache_dir.empty()) st->disk.emplace(opts.cache_dir);
  auto jit = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return fail(message(jit.takeError()));
  st->jit = std::move(*jit);
  auto& jd = st->jit->getMainJITDylib();
  orc::SymbolMap syms;
  auto def = [&](const char* name, const void* p) {
    syms[st->jit->mangleAndIntern(name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(p), llvm::JITSymbolFlags::Exported);
  };
  def("softgpu_jit_exec", reinterpret_cast<const void*>(&softgpu_jit_exec));
  def("softgpu_jit_src", reinterpret_cast<const void*>(&softgpu_jit_src));
  def("softgpu_jit_special", reinterpret_cast<const void*>(&softgpu_jit_special));
  if (auto e = jd.define(orc::absoluteSymbols(std::move(syms)))) return fail(message(std::move(e)));
  // libm and the C library, for what code generation turns into calls.
  auto gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(st->jit->getDataLayout().getGlobalPrefix());
  if (!gen) return fail(message(gen.takeError()));
  jd.addGenerator(std::move(*gen));
  return std::make_unique<LlvmCompiler>(std::move(st), opts);
}

}  // namespace softgpu::jit

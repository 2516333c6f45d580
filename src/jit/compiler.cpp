// The LLVM side: one ORC LLJIT for the host CPU, one IR module per
// compiled function, optimized and compiled at the first launch that
// reaches it and freed with the program.
#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "jit/helpers.h"
#include "jit/jit.h"
#include "jit/lower.h"

namespace softgpu::jit {

namespace orc = llvm::orc;

namespace {

constexpr uint32_t kMaxCompiledInstructions = 2000;

struct JitState {
  std::unique_ptr<orc::LLJIT> jit;
  std::mutex mu;
  uint64_t next_module = 0;
};

// A function's blocks; removing its resource tracker frees the machine code.
class Code final : public exec::CompiledCode {
 public:
  std::shared_ptr<JitState> st;
  orc::ResourceTrackerSP rt;
  ~Code() override {
    if (!rt) return;
    std::lock_guard lock(st->mu);
    llvm::consumeError(rt->remove());
  }
};

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
    const auto t0 = std::chrono::steady_clock::now();
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
    uint64_t id;
    {
      std::lock_guard lock(st_->mu);
      id = st_->next_module++;
    }
    auto mod = std::make_unique<llvm::Module>(fmt::format("softgpu_{}", id), *ctx);
    mod->setDataLayout(st_->jit->getDataLayout());
    mod->setTargetTriple(st_->jit->getTargetTriple().str());
    LowerStats stats;
    const std::string name = fmt::format("softgpu_{}_run", id);
    lower_function(*ctx, *mod, name, f, fns, blocks, stats);
    std::string err;
    llvm::raw_string_ostream es(err);
    if (llvm::verifyModule(*mod, &es)) {
      // A lowering bug: say so and interpret the function.
      std::fprintf(stderr, "softgpu: jit: '%s' not compiled (invalid IR: %s); it runs interpreted\n", f.name.c_str(),
                   es.str().substr(0, 300).c_str());
      return nullptr;
    }
    optimize(*mod);
    auto code = std::make_shared<Code>();
    code->st = st_;
    code->entry.assign(f.code.size(), nullptr);
    std::lock_guard lock(st_->mu);
    code->rt = st_->jit->getMainJITDylib().createResourceTracker();
    if (auto e = st_->jit->addIRModule(code->rt, orc::ThreadSafeModule(std::move(mod), std::move(ctx)))) {
      std::fprintf(stderr, "softgpu: jit: '%s' not compiled (%s); it runs interpreted\n", f.name.c_str(),
                   message(std::move(e)).c_str());
      return nullptr;
    }
    auto sym = st_->jit->lookup(name);
    if (!sym) {
      std::fprintf(stderr, "softgpu: jit: '%s' not compiled (%s); it runs interpreted\n", f.name.c_str(),
                   message(sym.takeError()).c_str());
      return nullptr;
    }
    for (const BlockRange& b : blocks) code->entry[b.begin] = sym->toPtr<exec::BlockFn>();
    if (opts_.verbose) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "softgpu: jit: '%s': %zu blocks, %u instructions compiled, %u through handlers, %.1f ms\n",
                   f.name.c_str(), blocks.size(), stats.native, stats.handler, ms);
    }
    return code;
  }

 private:
  std::shared_ptr<JitState> st_;
  JitOptions opts_;
};

}  // namespace

bool available() { return true; }

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
  auto jit = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return fail(message(jit.takeError()));
  auto st = std::make_shared<JitState>();
  st->jit = std::move(*jit);
  auto& jd = st->jit->getMainJITDylib();
  orc::SymbolMap syms;
  auto def = [&](const char* name, const void* p) {
    syms[st->jit->mangleAndIntern(name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(p), llvm::JITSymbolFlags::Exported);
  };
  def("softgpu_jit_exec", reinterpret_cast<const void*>(&softgpu_jit_exec));
  def("softgpu_jit_src", reinterpret_cast<const void*>(&softgpu_jit_src));
  def("softgpu_jit_global_ok", reinterpret_cast<const void*>(&softgpu_jit_global_ok));
  if (auto e = jd.define(orc::absoluteSymbols(std::move(syms)))) return fail(message(std::move(e)));
  // libm and the C library, for what code generation turns into calls.
  auto gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(st->jit->getDataLayout().getGlobalPrefix());
  if (!gen) return fail(message(gen.takeError()));
  jd.addGenerator(std::move(*gen));
  return std::make_unique<LlvmCompiler>(std::move(st), opts);
}

}  // namespace softgpu::jit

// load_program: allocate module variables, decode and link, bind handlers.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

#include "common/demangle.h"

#include "exec/warp.h"
#include "program/decoder.h"

namespace softgpu::exec {
namespace {

using isa::Opcode;
using ptx::Space;

uint64_t decl_size(const ptx::VarDecl& d) {
  uint64_t n = uint64_t(std::max<uint32_t>(program::type_size(d.type), 1)) * std::max<uint32_t>(d.vector, 1);
  for (const auto& dim : d.dims) n *= dim.value_or(0);
  return n;
}

// Writes a variable's initializer into its memory.
void initialize(const ptx::VarDecl& d, std::byte* mem, uint64_t size,
                const std::unordered_map<std::string, uint64_t>& addrs,
                const std::unordered_map<std::string, uint32_t>& fn_index, const std::string& file,
                std::vector<ptx::Diagnostic>& diags) {
  const uint32_t esize = std::max<uint32_t>(program::type_size(d.type), 1);
  uint64_t off = 0;
  for (const auto& v : d.init) {
    if (off + esize > size) break;
    uint64_t bits = v.bits;
    if (v.kind == ptx::InitValue::Kind::Float) {
      if (d.type == ptx::Type::F32) {
        float f = float(v.fvalue);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
      } else if (d.type == ptx::Type::F64) {
        std::memcpy(&bits, &v.fvalue, 8);
      }
    } else if (v.kind == ptx::InitValue::Kind::Symbol) {
      auto a = addrs.find(v.symbol);
      if (a != addrs.end()) bits = a->second + v.bits;
      else if (auto f = fn_index.find(v.symbol); f != fn_index.end()) bits = program::kFunctionAddressBase + f->second;
      else diags.push_back({ptx::Severity::Error, file, d.loc, fmt::format("unknown symbol '{}' in initializer", v.symbol)});
    }
    std::memcpy(mem + off, &bits, std::min<uint32_t>(esize, 8));
    off += esize;
  }
}

// What an instruction softgpu does not implement does if it runs after all
// (reached in a way the launch check did not foresee): it stops the kernel,
// as an instruction the hardware does not have would.
void exec_unimplemented(Warp& w, const Inst& in, uint32_t mask) {
  w.fault(Status::IllegalInstruction, uint32_t(std::countr_zero(mask)), 0,
          fmt::format("instruction '{}' is not implemented by softgpu", in.text()));
}

// Functions whose address the program takes (mov of a function symbol, or a
// function named in a variable's initializer): what an indirect call may reach.
std::vector<uint32_t> address_taken_functions(const program::Program& p, const std::vector<ptx::Module>& mods) {
  std::set<uint32_t> out;
  auto see = [&](const program::Operand& o) {
    if (o.kind != program::Operand::Kind::Imm) return;
    uint64_t v = uint64_t(o.imm);
    if (v >= program::kFunctionAddressBase && v - program::kFunctionAddressBase < p.functions.size())
      out.insert(uint32_t(v - program::kFunctionAddressBase));
  };
  for (const auto& f : p.functions) {
    for (const auto& in : f.code)
      for (const auto& o : in.o) see(o);
    for (const auto& o : f.vec_operands) see(o);
  }
  for (const auto& m : mods)
    for (const auto& g : m.globals)
      for (const auto& v : g.init)
        if (v.kind == ptx::InitValue::Kind::Symbol)
          if (auto it = p.function_index.find(v.symbol); it != p.function_index.end()) out.insert(it->second);
  return {out.begin(), out.end()};
}

// Why kernel `entry` cannot run: the first instruction softgpu does not
// implement that the kernel reaches, in its own code or in a function it
// calls (directly, or indirectly: any function whose address is taken),
// transitively. Empty when there is none.
std::string unimplemented_message(const program::Program& p, uint32_t entry,
                                  const std::vector<uint32_t>& address_taken) {
  std::vector<bool> seen(p.functions.size(), false);
  std::vector<uint32_t> todo{entry};  // breadth first: the kernel's own code is named first
  seen[entry] = true;
  for (size_t i = 0; i < todo.size(); ++i) {
    const program::Function& f = p.functions[todo[i]];
    if (!f.unimplemented.empty()) {
      const uint32_t pc = *std::min_element(f.unimplemented.begin(), f.unimplemented.end());
      const program::Inst& in = f.code[pc];
      std::string src = program::describe_source(p, f, pc);
      const program::Function& k = p.functions[entry];
      std::string pretty = demangle(k.name);
      return fmt::format("cannot launch kernel '{}'{}: softgpu does not implement instruction '{}' at PTX line {}{}{} "
                         "(cudaErrorNotSupported; the module's other kernels run)",
                         pretty, pretty == k.name ? "" : fmt::format(" ({})", k.name), in.text(), in.line,
                         src.empty() ? "" : " (" + src + ")",
                         todo[i] == entry ? "" : fmt::format(", in function '{}' that the kernel calls", demangle(f.name)));
    }
    auto visit = [&](uint32_t callee) {
      if (callee < seen.size() && !seen[callee]) {
        seen[callee] = true;
        todo.push_back(callee);
      }
    };
    for (const auto& in : f.code) {
      if (in.op != Opcode::Call || in.aux >= f.calls.size()) continue;
      if (!f.calls[in.aux].indirect) visit(in.target);
      else for (uint32_t t : address_taken) visit(t);
    }
  }
  return {};
}

}  // namespace

const HandlerTable& handler_table() {
  static const HandlerTable t = [] {
    HandlerTable h;
    register_memory_handlers(h);
    register_integer_handlers(h);
    register_float_handlers(h);
    register_convert_handlers(h);
    register_warp_handlers(h);
    register_tensor_handlers(h);
    register_wgmma_handlers(h);
    register_async_handlers(h);
    register_texture_handlers(h);
    register_tensormap_handlers(h);
    register_coop_handlers(h);
    return h;
  }();
  return t;
}

LoadResult load_program(std::vector<ptx::Module> modules, DeviceMemory& memory) {
  LoadResult res;
  auto lp = std::make_shared<LoadedProgram>();
  // 1. Module variables: one allocation each; extern declarations link by name.
  std::unordered_map<std::string, uint64_t> addrs;
  std::unordered_map<std::string, const ptx::VarDecl*> defs;
  std::vector<std::pair<const ptx::VarDecl*, const ptx::Module*>> to_init;
  for (const auto& mod : modules)
    for (size_t i = 0; i < mod.globals.size(); ++i) {
      const auto& g = mod.globals[i];
      if (g.space != Space::Global && g.space != Space::Const) continue;
      const bool is_extern = i < mod.global_linkage.size() && mod.global_linkage[i] == ptx::Linkage::Extern;
      if (is_extern || addrs.count(g.name)) continue;
      uint64_t size = std::max<uint64_t>(decl_size(g), 1);
      auto a = memory.allocate(Bytes{size}, MemKind::Symbol, (g.space == Space::Const ? "const:" : "") + g.name);
      if (!a) {
        res.diagnostics.push_back({ptx::Severity::Error, mod.filename, g.loc,
                                   fmt::format("cannot allocate '{}': {}", g.name, a.error().message)});
        continue;
      }
      addrs[g.name] = a->value;
      lp->owned.push_back(*a);
      lp->variables.push_back(VariableInfo{g.name, *a, Bytes{decl_size(g)}, g.space == Space::Const});
      to_init.emplace_back(&g, &mod);
    }
  for (const auto& mod : modules)
    for (size_t i = 0; i < mod.globals.size(); ++i) {
      const auto& g = mod.globals[i];
      if ((g.space == Space::Global || g.space == Space::Const) && !addrs.count(g.name))
        res.diagnostics.push_back({ptx::Severity::Error, mod.filename, g.loc,
                                   fmt::format("variable '{}' is declared extern but never defined", g.name)});
    }
  // 2. Decode and link.
  program::DecodeInput in{&modules, &addrs};
  program::decode(in, lp->prog, res.diagnostics);
  for (auto& [g, mod] : to_init) {
    uint64_t a = addrs[g->name];
    initialize(*g, DeviceMemory::host_ptr(DeviceAddr{a}), decl_size(*g), addrs, lp->prog.function_index,
               mod->filename, res.diagnostics);
  }
  // 3. Bind each instruction to its handler. An instruction without one (a
  // form no handler accepts, or an opcode the decoder did not know) does
  // not fail the load: it is listed in its function, and the kernels that
  // reach it fail at launch (step 4).
  const HandlerTable& table = handler_table();
  lp->fns.resize(lp->prog.functions.size());
  std::string file = modules.empty() ? std::string("<ptx>") : modules.front().filename;
  for (size_t fi = 0; fi < lp->prog.functions.size(); ++fi) {
    auto& f = lp->prog.functions[fi];
    auto& fns = lp->fns[fi];
    fns.resize(f.code.size(), nullptr);
    for (size_t pc = 0; pc < f.code.size(); ++pc) {
      const auto& inst = f.code[pc];
      if (inst.op == Opcode::Unimplemented) {  // the parser reported it
        fns[pc] = &exec_unimplemented;
        continue;
      }
      if (isa::has_flag(inst.op, isa::kControl)) continue;  // run by the warp itself
      BindFn b = table.bind[size_t(inst.op)];
      ExecFn e = b ? b(inst) : nullptr;
      if (!e) {
        res.diagnostics.push_back(
            {ptx::Severity::NotImplemented, file, ptx::SourceLoc{inst.line, 1},
             fmt::format("instruction '{}' is not implemented by softgpu (in function '{}'); kernels that use it "
                         "fail at launch",
                         inst.text(), f.name)});
        f.unimplemented.push_back(uint32_t(pc));
        fns[pc] = &exec_unimplemented;
        continue;
      }
      fns[pc] = e;
    }
  }
  const std::vector<uint32_t> address_taken = address_taken_functions(lp->prog, modules);
  for (size_t fi = 0; fi < lp->prog.functions.size(); ++fi) {
    const auto& f = lp->prog.functions[fi];
    if (f.is_entry) {
      KernelInfo k;
      k.name = f.name;
      for (auto [off, size, align] : f.kernel_params) k.params.push_back({off, size, align});
      k.param_bytes = f.kernel_param_bytes;
      k.static_shared_bytes = f.static_shared_bytes;
      k.local_bytes = f.local_bytes;
      k.num_regs = std::min<uint32_t>(f.num_regs, 255);
      k.max_threads_per_block = f.max_threads;
      k.ptx_version = lp->prog.ptx_version;
      k.sm_target = lp->prog.sm_target;
      if (f.cluster_dims[0]) k.required_cluster = Dim3{f.cluster_dims[0], f.cluster_dims[1], f.cluster_dims[2]};
      k.explicit_cluster = f.explicit_cluster;
      k.not_implemented = unimplemented_message(lp->prog, uint32_t(fi), address_taken);
      lp->kernels.push_back(std::move(k));
    }
  }
  if (ptx::has_errors(res.diagnostics)) {
    unload_program(*lp, memory);
    return res;
  }
  res.program = std::move(lp);
  return res;
}

const std::vector<KernelInfo>& kernels(const LoadedProgram& p) { return p.kernels; }

bool calls_printf(const LoadedProgram& p) {
  for (const auto& f : p.prog.functions)
    if (f.builtin == program::Function::Builtin::Vprintf) return true;
  return false;
}

const KernelInfo* find_kernel(const LoadedProgram& p, const std::string& name) {
  for (const auto& k : p.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::optional<VariableInfo> find_variable(const LoadedProgram& p, const std::string& name) {
  for (const auto& v : p.variables)
    if (v.name == name) return v;
  return std::nullopt;
}

uint64_t const_bytes(const LoadedProgram& p) {
  uint64_t n = 0;
  for (const auto& v : p.variables)
    if (v.is_const) n += v.size.value;
  return n;
}

void unload_program(LoadedProgram& p, DeviceMemory& memory) {
  for (auto a : p.owned) memory.release(a, {MemKind::Symbol});
  p.owned.clear();
}

}  // namespace softgpu::exec

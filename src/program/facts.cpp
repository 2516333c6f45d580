#include "program/facts.h"
#include "program/pipe.h"
#include "program/sequence.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace softgpu::program {
namespace {

using OK = Operand::Kind;

void add_slots(const Function& f, const Operand& o, std::vector<uint32_t>& out) {
  auto one = [&](const Operand& e) {
    if (e.kind == OK::Reg) out.push_back(e.reg);
    else if (e.kind == OK::Pred) out.push_back(kPredSlot | e.reg);
    else if (e.kind == OK::Addr && e.reg != kNoReg) out.push_back(e.reg);
  };
  one(o);
  if (o.kind == OK::Vec || (o.kind == OK::Addr && o.vec_n > 0))
    for (uint32_t i = 0; i < o.vec_n && o.vec_begin + i < f.vec_operands.size(); ++i) one(f.vec_operands[o.vec_begin + i]);
}

// Sorted and without repeats, so each set names a slot once.
void unique(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// mma.sync / wmma.mma / wgmma.mma_async: the shape (.mMnNkK) and the input type (the second
// type of mma's d.a.b.c list; wmma.mma's f16 form names only d and c).
void tensor_facts(const Inst& in, InstFacts& u) {
  const bool wmma = in.op == isa::Opcode::Wmma, wgmma = in.op == isa::Opcode::Wgmma;
  if (in.op != isa::Opcode::Mma && !wmma && !wgmma) return;
  uint32_t m = 0, n = 0, k = 0;
  std::vector<std::string_view> types;
  bool is_mma = !wmma && !wgmma, sparse = false;
  for (const auto& r : in.raw_mods) {
    std::string_view s = r;
    if (s == ".mma" || s == ".mma_async") is_mma = true;
    if (s == ".sp" || s == ".sp::ordered_metadata") sparse = true;
    if (s.size() > 2 && s[1] == 'm' && s.find('n') != s.npos && s.find('k') != s.npos &&
        std::sscanf(r.c_str(), ".m%un%uk%u", &m, &n, &k) == 3)
      continue;
    static constexpr std::string_view kTypes[] = {".f16", ".bf16", ".tf32", ".f32", ".f64", ".s8", ".u8",
                                                  ".e4m3", ".e5m2", ".s32", ".s4", ".u4", ".b1"};
    for (auto t : kTypes)
      if (s == t) types.push_back(s);
  }
  if (!is_mma || !m || !n || !k || types.empty()) return;
  const std::string_view d = types[0];
  const std::string_view a = types.size() >= 3 ? types[1] : ".f16";
  TensorKind kind = TensorKind::None;
  if (a == ".f16") kind = d == ".f16" ? TensorKind::Fp16F16 : TensorKind::Fp16F32;
  else if (a == ".bf16") kind = TensorKind::Bf16F32;
  else if (a == ".tf32") kind = TensorKind::Tf32;
  else if (a == ".f64") kind = TensorKind::Fp64;
  else if (a == ".s8" || a == ".u8" || a == ".s4" || a == ".u4" || a == ".b1") kind = TensorKind::Int8;
  else if (a == ".e4m3" || a == ".e5m2") kind = d == ".f16" ? TensorKind::Fp8F16 : TensorKind::Fp8F32;
  u.tensor = uint8_t(kind);
  // A wgmma's m64 product is the warpgroup's: each of its four warps issues a quarter.
  u.tensor_flops = 2 * (wgmma ? m / 4 : m) * n * k;
  // Sparse (mma.sp): the tensor cores skip A's zeros, so the product of
  // shape K costs what the dense one of K/2 does: twice the dense
  // throughput of the type (Ampere and Hopper). The count is the pipe's
  // work, not the shape's nominal 2mnk.
  if (sparse) u.tensor_flops /= 2;
}

}  // namespace

void compute_facts(Function& f) {
  f.facts.assign(f.code.size(), {});
  f.reg_slots.clear();
  std::vector<uint32_t> w, r;
  for (size_t pc = 0; pc < f.code.size(); ++pc) {
    const Inst& in = f.code[pc];
    w.clear();
    r.clear();
    uint32_t ndst = isa::info(in.op).destinations;
    if (ndst > 0 && in.nops > 0 && in.o[0].kind == OK::Addr) ndst = 0;
    ndst = std::min<uint32_t>(ndst, in.nops);
    for (uint32_t i = 0; i < in.nops; ++i) {
      const Operand& o = in.o[i];
      // An address operand is read even in a destination position (its base).
      if (i < ndst && o.kind != OK::Addr) add_slots(f, o, w);
      else add_slots(f, o, r);
    }
    if (in.pair().kind != OK::None) add_slots(f, in.pair(), w);
    if (in.has_guard) r.push_back(kPredSlot | in.guard);
    unique(w);
    unique(r);
    InstFacts& u = f.facts[pc];
    tensor_facts(in, u);
    u.pipe = uint8_t(pipe(in));
    u.sequence = uint8_t(sequence(in));
    if (in.m.folded()) u.flags |= kFactFolded;
    if (in.op == isa::Opcode::Cp)
      for (const auto& m : in.raw_mods)
        if (m == ".wait_group" || m == ".wait_all") u.flags |= kFactAsyncWait;
        else if (m == ".bulk" || m == ".cg") u.flags |= kFactSkipsL1;
    if (in.op == isa::Opcode::Ld)
      for (const auto& m : in.raw_mods)
        if (m == ".cg") u.flags |= kFactSkipsL1;
    if (in.op == isa::Opcode::Wgmma)
      for (const auto& m : in.raw_mods) {
        if (m == ".mma_async") u.flags |= kFactTensorAsync;
        if (m == ".commit_group") u.flags |= kFactTensorCommit;
        if (m == ".wait_group") u.flags |= kFactTensorWait;
      }
    u.first = uint32_t(f.reg_slots.size());
    if (w.size() > 255 || r.size() > 255) u.flags |= kFactSlotsCut;
    u.writes = uint8_t(std::min<size_t>(w.size(), 255));
    u.reads = uint8_t(std::min<size_t>(r.size(), 255));
    f.reg_slots.insert(f.reg_slots.end(), w.begin(), w.begin() + u.writes);
    f.reg_slots.insert(f.reg_slots.end(), r.begin(), r.begin() + u.reads);
  }
}

}  // namespace softgpu::program

#include "program/facts.h"
#include "program/pipe.h"

#include <algorithm>

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
    u.pipe = uint8_t(pipe(in));
    if (is_sequence(in)) u.flags |= kFactSequence;
    if (in.op == isa::Opcode::Cp)
      for (const auto& m : in.raw_mods)
        if (m == ".wait_group" || m == ".wait_all") u.flags |= kFactAsyncWait;
    u.first = uint32_t(f.reg_slots.size());
    u.writes = uint8_t(std::min<size_t>(w.size(), 255));
    u.reads = uint8_t(std::min<size_t>(r.size(), 255));
    f.reg_slots.insert(f.reg_slots.end(), w.begin(), w.begin() + u.writes);
    f.reg_slots.insert(f.reg_slots.end(), r.begin(), r.begin() + u.reads);
  }
}

}  // namespace softgpu::program

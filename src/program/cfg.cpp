// Reconvergence points: immediate post-dominators by the Cooper-Harvey-
// Kennedy iterative algorithm, run on the reversed control-flow graph; and
// the registers a function may read before writing them.
#include <algorithm>
#include <bit>

#include "program/facts.h"

#include "program/decoder.h"

namespace softgpu::program {
namespace {

using isa::Opcode;

std::vector<std::vector<uint32_t>> successors(const Function& f) {
  const uint32_t n = uint32_t(f.code.size());
  std::vector<std::vector<uint32_t>> succ(n + 1);
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Inst& in = f.code[pc];
    auto& s = succ[pc];
    switch (in.op) {
      case Opcode::Bra:
        s.push_back(in.target);
        if (in.has_guard) s.push_back(pc + 1);
        break;
      case Opcode::Brx:
        for (uint32_t t : f.branch_tables.at(in.aux)) s.push_back(t);
        break;
      case Opcode::Ret: case Opcode::Exit:
        s.push_back(n);
        if (in.has_guard) s.push_back(pc + 1);
        break;
      case Opcode::Trap:
        // A trap never continues: paths into it must not pull reconvergence
        // points down to the function's exit (nvcc puts a trap in the
        // default case of switches).
        if (in.has_guard) s.push_back(pc + 1);
        break;
      default:
        s.push_back(pc + 1);
    }
    for (auto& t : s) t = std::min(t, n);
  }
  return succ;
}

}  // namespace

std::vector<uint32_t> immediate_post_dominators(const Function& f) {
  const uint32_t n = uint32_t(f.code.size());
  const uint32_t exit = n;
  auto succ = successors(f);
  std::vector<std::vector<uint32_t>> pred(n + 1);  // predecessors in the original graph
  for (uint32_t u = 0; u <= n; ++u)
    for (uint32_t v : succ[u]) pred[v].push_back(u);

  // Postorder of the reversed graph from the exit (iterative DFS over pred).
  std::vector<uint32_t> order;  // postorder
  std::vector<uint32_t> po_num(n + 1, UINT32_MAX);
  std::vector<uint8_t> seen(n + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> stack{{exit, 0}};
  seen[exit] = 1;
  while (!stack.empty()) {
    auto& [node, i] = stack.back();
    if (i < pred[node].size()) {
      uint32_t next = pred[node][i++];
      if (!seen[next]) { seen[next] = 1; stack.push_back({next, 0}); }
    } else {
      po_num[node] = uint32_t(order.size());
      order.push_back(node);
      stack.pop_back();
    }
  }

  std::vector<uint32_t> idom(n + 1, UINT32_MAX);
  idom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = idom[a];
      while (po_num[b] < po_num[a]) b = idom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    // Reverse postorder, skipping the root.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      uint32_t b = *it;
      if (b == exit) continue;
      uint32_t new_idom = UINT32_MAX;
      for (uint32_t s : succ[b]) {  // predecessors in the reversed graph
        if (idom[s] == UINT32_MAX) continue;
        new_idom = new_idom == UINT32_MAX ? s : intersect(s, new_idom);
      }
      if (new_idom != UINT32_MAX && idom[b] != new_idom) { idom[b] = new_idom; changed = true; }
    }
  }
  for (auto& d : idom)
    if (d == UINT32_MAX) d = exit;  // cannot reach the exit (infinite loop)
  return idom;
}

void find_undefined_reads(Function& f) {
  f.undefined_regs.clear();
  f.regs_analysed = false;
  const uint32_t n = uint32_t(f.code.size());
  if (f.facts.size() != n) return;
  for (const InstFacts& u : f.facts)
    if (u.flags & kFactSlotsCut) return;
  if (n == 0 || f.num_regs == 0) {
    f.regs_analysed = true;
    return;
  }
  // Basic blocks: leaders at the entry, at branch targets and after
  // anything with more than one successor or a jump.
  auto succ = successors(f);
  std::vector<uint8_t> leader(n + 1, 0);
  leader[0] = leader[n] = 1;
  for (uint32_t pc = 0; pc < n; ++pc)
    if (succ[pc].size() != 1 || succ[pc][0] != pc + 1) {
      leader[std::min(pc + 1, n)] = 1;
      for (uint32_t t : succ[pc]) leader[t] = 1;
    }
  std::vector<uint32_t> block_of(n + 1, 0), starts;
  for (uint32_t pc = 0; pc <= n; ++pc) {
    if (leader[pc]) starts.push_back(pc);
    block_of[pc] = uint32_t(starts.size() - 1);
  }
  const size_t nb = starts.size();  // the last block is the exit (pc n)
  const size_t words = (size_t(f.num_regs) + 63) / 64;
  if (nb * words > (size_t(1) << 24)) return;  // 128 MB of sets: leave it unanalysed
  // in[b]: slots written on every path from the entry to block b (all ones
  // until a path reaches it); a forward must-analysis to its fixpoint.
  std::vector<uint64_t> in(nb * words, ~uint64_t(0)), cur(words);
  std::fill_n(in.begin(), words, 0);
  std::vector<uint8_t> reached(nb, 0), queued(nb, 0);
  reached[0] = 1;
  std::vector<uint32_t> work{0};
  queued[0] = 1;
  auto written = [&](uint32_t pc) {
    if (f.code[pc].has_guard) return;  // a guarded write leaves some lanes unset
    for (uint32_t s : writes(f, pc))
      if (!(s & kPredSlot) && s < f.num_regs) cur[s / 64] |= uint64_t(1) << (s % 64);
  };
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    queued[b] = 0;
    if (starts[b] == n) continue;
    std::copy_n(in.begin() + long(b * words), words, cur.begin());
    const uint32_t end = b + 1 < nb ? starts[b + 1] : n;
    for (uint32_t pc = starts[b]; pc < end; ++pc) written(pc);
    for (uint32_t t : succ[end - 1]) {
      const uint32_t tb = block_of[t];
      uint64_t* dst = &in[tb * words];
      bool changed = !reached[tb];
      for (size_t i = 0; i < words; ++i) {
        const uint64_t v = reached[tb] ? dst[i] & cur[i] : cur[i];
        changed |= v != dst[i];
        dst[i] = v;
      }
      reached[tb] = 1;
      if (changed && !queued[tb]) {
        queued[tb] = 1;
        work.push_back(tb);
      }
    }
  }
  std::vector<uint64_t> undefined(words, 0);
  for (size_t b = 0; b < nb; ++b) {
    if (!reached[b] || starts[b] == n) continue;
    std::copy_n(in.begin() + long(b * words), words, cur.begin());
    const uint32_t end = b + 1 < nb ? starts[b + 1] : n;
    for (uint32_t pc = starts[b]; pc < end; ++pc) {
      for (uint32_t s : reads(f, pc))
        if (!(s & kPredSlot) && s < f.num_regs && !(cur[s / 64] >> (s % 64) & 1))
          undefined[s / 64] |= uint64_t(1) << (s % 64);
      written(pc);
    }
  }
  for (size_t i = 0; i < words; ++i)
    for (uint64_t m = undefined[i]; m; m &= m - 1) f.undefined_regs.push_back(uint32_t(i * 64 + std::countr_zero(m)));
  f.regs_analysed = true;
}

}  // namespace softgpu::program

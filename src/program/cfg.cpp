// Reconvergence points: immediate post-dominators by the Cooper-Harvey-
// Kennedy iterative algorithm, run on the reversed control-flow graph.
#include <algorithm>

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

}  // namespace softgpu::program

// CUDA graphs and stream capture. Work recorded into a graph is replayed
// through the ordinary Runtime calls, so every check and fault path is the
// one a direct call would take. See graph.h.
#include "runtime/graph.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <thread>
#include <unordered_set>

#include <fmt/core.h>

#include "runtime/mempool.h"
#include "runtime/module_registry.h"
#include "runtime/streams.h"

namespace softgpu::runtime {

namespace {
struct Graph;
struct Node {
  Graph* graph = nullptr;
  GraphNodeSpec spec;
  std::vector<Node*> deps;
  std::vector<void*> arg_ptrs;  // kernelParams handed back by graph_node_get
};
struct Graph {
  std::vector<std::unique_ptr<Node>> nodes;
  void* mem_exec = nullptr;  // the one executable graph of a graph with memory nodes
};
struct Exec {
  std::vector<GraphNodeSpec> order;          // topological order
  std::vector<std::vector<uint32_t>> deps;   // per node: positions in order of its dependencies
  std::unordered_map<const Node*, size_t> index;  // graph node -> position in order
  void* graph = nullptr;                     // instantiated from
  bool auto_free = false;                    // cudaGraphInstantiateFlagAutoFreeOnLaunch
  std::vector<uint64_t> allocs;              // addresses of its alloc nodes
};
// One capture sequence: the origin stream and every stream that joined it
// by waiting on an event recorded in it.
struct Capture {
  Graph* graph = nullptr;
  int mode = 0;  // cudaStreamCaptureMode
  std::thread::id thread = std::this_thread::get_id();  // the thread that began it
  uint64_t id = 0;
  bool invalidated = false;
  void* origin = nullptr;
  // Per member stream: the nodes its next captured work depends on.
  std::unordered_map<void*, std::vector<Node*>> deps;
};
// An event recorded on a capturing stream: the dependencies it stands for.
struct CapturedEvent {
  std::weak_ptr<Capture> capture;
  std::vector<Node*> nodes;
};

bool is_mem_node(const GraphNodeSpec& s) {
  return s.type == GraphNodeSpec::MemAlloc || s.type == GraphNodeSpec::MemFree;
}
uint64_t mem_addr(const GraphNodeSpec& s) { return reinterpret_cast<uint64_t>(s.dst); }

// True if a node in `deps` or one of their ancestors is the alloc node of addr.
bool alloc_precedes(const std::vector<Node*>& deps, uint64_t addr) {
  std::vector<const Node*> todo(deps.begin(), deps.end());
  std::unordered_set<const Node*> seen;
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->spec.type == GraphNodeSpec::MemAlloc && mem_addr(n->spec) == addr) return true;
    todo.insert(todo.end(), n->deps.begin(), n->deps.end());
  }
  return false;
}

bool is_legacy(void* stream) { return stream == nullptr || stream == kLegacyStream; }

// Kahn's algorithm, stable in insertion order; false on a cycle.
bool topo_order(const Graph& g, std::vector<const Node*>* out) {
  std::unordered_map<const Node*, size_t> pending;
  std::unordered_map<const Node*, std::vector<const Node*>> users;
  for (auto& n : g.nodes) {
    pending[n.get()] = n->deps.size();
    for (Node* d : n->deps) users[d].push_back(n.get());
  }
  std::vector<const Node*> ready;
  for (auto& n : g.nodes)
    if (n->deps.empty()) ready.push_back(n.get());
  out->clear();
  for (size_t i = 0; i < ready.size(); ++i) {
    out->push_back(ready[i]);
    for (const Node* u : users[ready[i]])
      if (--pending[u] == 0) ready.push_back(u);
  }
  return out->size() == g.nodes.size();
}
}  // namespace

struct GraphManager::State {
  std::unordered_map<void*, std::unique_ptr<Graph>> graphs;
  std::unordered_map<void*, Node*> nodes;
  std::unordered_map<void*, std::unique_ptr<Exec>> execs;
  std::unordered_map<void*, std::shared_ptr<Capture>> captures;  // by member stream
  std::unordered_map<void*, CapturedEvent> events;              // recorded during a capture
  std::unordered_map<void*, std::vector<void*>> info_deps;      // arrays handed out by stream_capture_info
  uint64_t next_capture_id = 1;
};

GraphManager::GraphManager(ModuleRegistry& modules, StreamOrderedMemory& pools, const StreamsAndEvents& streams,
                           Replay replay)
    : modules_(modules), pools_(pools), streams_(streams), replay_(std::move(replay)),
      st_(std::make_unique<State>()) {}

GraphManager::~GraphManager() = default;

// ---------------------------------------------------------------- kernel args

Status GraphManager::pack_kernel_args(GraphNodeSpec& spec) {
  Kernel* k = nullptr;
  if (Status s = modules_.resolve_kernel(spec.kernel, &k); s != Status::Success) return s;
  if (Status s = modules_.use_kernel_module(*k); s != Status::Success) return s;
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return Status::InvalidDeviceFunction;
  spec.kernel = k->host_fun ? k->host_fun : spec.kernel;  // report the host stub, as CUDA's func
  if (!info->params.empty() && !spec.args) return Status::InvalidValue;
  spec.param_bytes.assign(info->param_bytes, 0);
  spec.param_offsets.clear();
  for (size_t i = 0; i < info->params.size(); ++i) {
    const exec::KernelParam& p = info->params[i];
    if (!spec.args[i] || uint64_t(p.offset) + p.size > spec.param_bytes.size()) return Status::InvalidValue;
    std::memcpy(spec.param_bytes.data() + p.offset, spec.args[i], p.size);
    spec.param_offsets.push_back(p.offset);
  }
  spec.args = nullptr;  // only valid during the call
  return Status::Success;
}

// ---------------------------------------------------------------- graphs

Status GraphManager::graph_create(void** out, unsigned flags) {
  if (!out || flags != 0) return Status::InvalidValue;
  auto g = std::make_unique<Graph>();
  *out = g.get();
  (*st_).graphs.emplace(g.get(), std::move(g));
  return Status::Success;
}

Status GraphManager::graph_destroy(void* graph) {
  auto& st = (*st_);
  auto it = st.graphs.find(graph);
  if (it == st.graphs.end()) return Status::InvalidValue;
  for (auto& c : st.captures)
    if (c.second->graph == graph) return Status::InvalidValue;  // still being captured into
  for (auto& n : it->second->nodes) {
    if (n->spec.type == GraphNodeSpec::MemAlloc) pools_.graph_mem_release(mem_addr(n->spec), graph);
    if (n->spec.type == GraphNodeSpec::MemFree) pools_.graph_mem_drop_free(mem_addr(n->spec), graph);
    st.nodes.erase(n.get());
  }
  st.graphs.erase(it);
  return Status::Success;
}

Status GraphManager::graph_add_node(void** out, void* graph, void* const* deps, size_t ndeps, const GraphNodeSpec& spec) {
  auto& st = (*st_);
  auto it = st.graphs.find(graph);
  if (!out || it == st.graphs.end() || (ndeps && !deps)) return Status::InvalidValue;
  auto node = std::make_unique<Node>();
  node->graph = it->second.get();
  for (size_t i = 0; i < ndeps; ++i) {
    auto d = st.nodes.find(deps[i]);
    if (d == st.nodes.end() || d->second->graph != node->graph) return Status::InvalidValue;
    if (std::find(node->deps.begin(), node->deps.end(), d->second) != node->deps.end())
      return Status::InvalidValue;  // duplicate dependency
    node->deps.push_back(d->second);
  }
  node->spec = spec;
  if (spec.type == GraphNodeSpec::Kernel)
    if (Status s = pack_kernel_args(node->spec); s != Status::Success) return s;
  if (spec.type == GraphNodeSpec::Host && !spec.fn) return Status::InvalidValue;
  if (spec.type == GraphNodeSpec::Memset && spec.element_size != 1 && spec.element_size != 2 &&
      spec.element_size != 4)
    return Status::InvalidValue;
  if (is_mem_node(spec)) {
    bool precedes = spec.type == GraphNodeSpec::MemFree && alloc_precedes(node->deps, mem_addr(spec));
    if (Status s = pools_.graph_mem_node(node->spec, graph, precedes); s != Status::Success) return s;
  }
  *out = node.get();
  st.nodes.emplace(node.get(), node.get());
  node->graph->nodes.push_back(std::move(node));
  return Status::Success;
}

Status GraphManager::graph_node_get(void* node, GraphNodeSpec* out) {
  auto& st = (*st_);
  auto it = st.nodes.find(node);
  if (it == st.nodes.end() || !out) return Status::InvalidValue;
  Node& n = *it->second;
  *out = n.spec;
  if (n.spec.type == GraphNodeSpec::Kernel) {
    n.arg_ptrs.clear();
    for (uint32_t off : n.spec.param_offsets) n.arg_ptrs.push_back(n.spec.param_bytes.data() + off);
    out->args = n.arg_ptrs.data();
  }
  return Status::Success;
}

Status GraphManager::graph_node_set(void* node, const GraphNodeSpec& spec) {
  auto& st = (*st_);
  auto it = st.nodes.find(node);
  if (it == st.nodes.end() || it->second->spec.type != spec.type || is_mem_node(spec))
    return Status::InvalidValue;
  GraphNodeSpec s2 = spec;
  if (s2.type == GraphNodeSpec::Kernel)
    if (Status s = pack_kernel_args(s2); s != Status::Success) return s;
  it->second->spec = std::move(s2);
  return Status::Success;
}

Status GraphManager::graph_add_dependencies(void* graph, void* const* from, void* const* to, size_t n) {
  auto& st = (*st_);
  auto g = st.graphs.find(graph);
  if (g == st.graphs.end() || (n && (!from || !to))) return Status::InvalidValue;
  // Validate everything first so a failing call changes nothing.
  std::vector<std::pair<Node*, Node*>> edges;
  for (size_t i = 0; i < n; ++i) {
    auto a = st.nodes.find(from[i]), b = st.nodes.find(to[i]);
    if (a == st.nodes.end() || b == st.nodes.end() || a->second == b->second || a->second->graph != g->second.get() ||
        b->second->graph != g->second.get())
      return Status::InvalidValue;
    auto& d = b->second->deps;
    if (std::find(d.begin(), d.end(), a->second) != d.end()) return Status::InvalidValue;
    edges.emplace_back(a->second, b->second);
  }
  for (auto& [a, b] : edges) b->deps.push_back(a);
  return Status::Success;
}

Status GraphManager::graph_nodes(void* graph, void** nodes, size_t* count) {
  auto& st = (*st_);
  auto g = st.graphs.find(graph);
  if (g == st.graphs.end() || !count) return Status::InvalidValue;
  const auto& list = g->second->nodes;
  if (nodes) {
    size_t n = std::min(*count, list.size());
    for (size_t i = 0; i < n; ++i) nodes[i] = list[i].get();
    for (size_t i = n; i < *count; ++i) nodes[i] = nullptr;  // CUDA zeroes the unused entries
  }
  *count = list.size();
  return Status::Success;
}

Status GraphManager::graph_clone(void** out, void* graph) {
  auto& st = (*st_);
  auto g = st.graphs.find(graph);
  if (!out || g == st.graphs.end()) return Status::InvalidValue;
  for (auto& n : g->second->nodes)
    if (is_mem_node(n->spec)) return Status::NotSupported;  // as CUDA: no clones with memory nodes
  auto c = std::make_unique<Graph>();
  std::unordered_map<const Node*, Node*> map;
  for (auto& n : g->second->nodes) {
    auto m = std::make_unique<Node>();
    m->graph = c.get();
    m->spec = n->spec;
    map[n.get()] = m.get();
    c->nodes.push_back(std::move(m));
  }
  for (size_t i = 0; i < c->nodes.size(); ++i) {
    for (Node* d : g->second->nodes[i]->deps) c->nodes[i]->deps.push_back(map[d]);
    st.nodes.emplace(c->nodes[i].get(), c->nodes[i].get());
  }
  *out = c.get();
  st.graphs.emplace(c.get(), std::move(c));
  return Status::Success;
}

// ---------------------------------------------------------------- executable graphs

Status GraphManager::graph_instantiate(void** out, void* graph, unsigned long long flags) {
  auto& st = (*st_);
  auto g = st.graphs.find(graph);
  if (!out || g == st.graphs.end()) return Status::InvalidValue;
  std::vector<const Node*> order;
  if (!topo_order(*g->second, &order)) return Status::InvalidValue;  // a cycle
  bool has_mem = std::any_of(order.begin(), order.end(), [](const Node* n) { return is_mem_node(n->spec); });
  // A graph with memory nodes has at most one executable graph at a time.
  if (has_mem && g->second->mem_exec && st.execs.count(g->second->mem_exec)) return Status::InvalidValue;
  auto e = std::make_unique<Exec>();
  e->graph = graph;
  e->auto_free = flags & 1;
  for (const Node* n : order) {
    e->index[n] = e->order.size();
    e->order.push_back(n->spec);
    auto& d = e->deps.emplace_back();
    for (const Node* p : n->deps) d.push_back(uint32_t(e->index.at(p)));  // before n in topological order
    if (n->spec.type == GraphNodeSpec::MemAlloc) {
      pools_.graph_mem_retain(mem_addr(n->spec));
      e->allocs.push_back(mem_addr(n->spec));
    }
  }
  if (has_mem) g->second->mem_exec = e.get();
  *out = e.get();
  st.execs.emplace(e.get(), std::move(e));
  return Status::Success;
}

Status GraphManager::graph_exec_destroy(void* exec) {
  auto& st = (*st_);
  auto e = st.execs.find(exec);
  if (e == st.execs.end()) return Status::InvalidValue;
  for (uint64_t a : e->second->allocs) pools_.graph_mem_release(a, nullptr);
  if (auto g = st.graphs.find(e->second->graph); g != st.graphs.end() && g->second->mem_exec == exec)
    g->second->mem_exec = nullptr;
  st.execs.erase(e);
  return Status::Success;
}

Status GraphManager::graph_exec_set_node(void* exec, void* node, const GraphNodeSpec& spec) {
  auto& st = (*st_);
  auto e = st.execs.find(exec);
  if (e == st.execs.end()) return Status::InvalidValue;
  auto i = e->second->index.find(static_cast<const Node*>(node));
  if (i == e->second->index.end()) return Status::InvalidValue;
  GraphNodeSpec& cur = e->second->order[i->second];
  if (cur.type != spec.type || is_mem_node(spec)) return Status::InvalidValue;
  GraphNodeSpec s2 = spec;
  if (s2.type == GraphNodeSpec::Kernel) {
    if (Status s = pack_kernel_args(s2); s != Status::Success) return s;
    // The function may not change (CUDA: cudaErrorInvalidValue).
    Kernel *a = nullptr, *b = nullptr;
    modules_.resolve_kernel(cur.kernel, &a);
    modules_.resolve_kernel(s2.kernel, &b);
    if (a != b) return Status::InvalidValue;
  }
  cur = std::move(s2);
  return Status::Success;
}

Status GraphManager::graph_exec_update(void* exec, void* graph, ExecUpdateResult* result) {
  auto& st = (*st_);
  auto e = st.execs.find(exec);
  auto g = st.graphs.find(graph);
  if (e == st.execs.end() || g == st.graphs.end()) return Status::InvalidValue;
  auto fail = [&](ExecUpdateResult r) {
    if (result) *result = r;
    return kGraphExecUpdateFailure;
  };
  std::vector<const Node*> order;
  if (!topo_order(*g->second, &order)) return fail(ExecUpdateResult::TopologyChanged);
  Exec& x = *e->second;
  if (order.size() != x.order.size()) return fail(ExecUpdateResult::TopologyChanged);
  // Nodes pair up in topological order; types and kernels must match.
  for (size_t i = 0; i < order.size(); ++i) {
    const GraphNodeSpec &a = x.order[i], &b = order[i]->spec;
    if (a.type != b.type) return fail(ExecUpdateResult::NodeTypeChanged);
    if (is_mem_node(a) && (a.dst != b.dst || a.width != b.width)) return fail(ExecUpdateResult::NotSupported);
    if (a.type == GraphNodeSpec::Kernel) {
      Kernel *ka = nullptr, *kb = nullptr;
      modules_.resolve_kernel(a.kernel, &ka);
      modules_.resolve_kernel(b.kernel, &kb);
      if (ka != kb) return fail(ExecUpdateResult::FunctionChanged);
    }
  }
  for (size_t i = 0; i < order.size(); ++i) x.order[i] = order[i]->spec;
  if (result) *result = ExecUpdateResult::Success;
  return Status::Success;
}

Status GraphManager::graph_launch(void* exec, void* stream) {
  auto& st = (*st_);
  auto e = st.execs.find(exec);
  if (e == st.execs.end()) return Status::InvalidResourceHandle;
  if (Status s = streams_.check_stream(stream); s != Status::Success) return s;
  if (st.captures.count(stream)) {
    // Capturing a graph launch would add a child-graph node: not modelled.
    std::cerr << "softgpu: cudaGraphLaunch into a capturing stream is not supported\n";
    st.captures[stream]->invalidated = true;
    return kStreamCaptureUnsupported;
  }
  // Allocations still live from an earlier launch: freed first with
  // AutoFreeOnLaunch, else the launch fails before running anything.
  for (uint64_t a : e->second->allocs)
    if (Status s = pools_.graph_mem_prelaunch(a, e->second->auto_free); s != Status::Success) return s;
  const Exec& x = *e->second;
  for (size_t i = 0; i < x.order.size(); ++i) {
    const GraphNodeSpec& n = x.order[i];
    // The timing model runs each node on its own timeline after its
    // dependencies, so independent branches overlap (runtime.cpp).
    if (replay_.timing_node) replay_.timing_node(exec, i, &x.deps[i], stream);
    Status s = Status::Success;
    switch (n.type) {
      case GraphNodeSpec::Kernel: {
        std::vector<uint8_t> bytes = n.param_bytes;  // launch only reads them, but keep the exec immutable
        std::vector<void*> ptrs;
        for (uint32_t off : n.param_offsets) ptrs.push_back(bytes.data() + off);
        s = replay_.launch(n.kernel, n.grid, n.block, ptrs.data(), n.shared_bytes, stream);
        break;
      }
      case GraphNodeSpec::Memcpy:
        if (n.height <= 1 && n.depth <= 1) {
          s = replay_.memcpy(n.dst, n.src, n.width, n.kind, stream);
        } else {
          for (size_t z = 0; z < n.depth && s == Status::Success; ++z)
            s = replay_.memcpy_2d(static_cast<char*>(n.dst) + z * n.dpitch * n.dslice_rows, n.dpitch,
                          static_cast<const char*>(n.src) + z * n.spitch * n.sslice_rows, n.spitch, n.width,
                          n.height, n.kind, stream);
        }
        break;
      case GraphNodeSpec::Memset: {
        uint32_t v = n.value;
        bool bytewise = n.element_size == 1 || (n.element_size == 2 && (v & 0xff) == ((v >> 8) & 0xff)) ||
                        (n.element_size == 4 && v == (v & 0xff) * 0x01010101u);
        if (bytewise && n.height <= 1) {
          s = replay_.memset(n.dst, int(v & 0xff), n.width * n.element_size, stream);
        } else if (bytewise) {
          s = replay_.memset_2d(n.dst, n.dpitch, int(v & 0xff), n.width * n.element_size, n.height, stream);
        } else {
          // A multi-byte pattern: build one row on the host and copy it in.
          std::vector<uint8_t> row(n.width * n.element_size);
          for (size_t i = 0; i < n.width; ++i) std::memcpy(row.data() + i * n.element_size, &v, n.element_size);
          for (size_t y = 0; y < std::max<size_t>(n.height, 1) && s == Status::Success; ++y)
            s = replay_.memcpy(static_cast<char*>(n.dst) + y * n.dpitch, row.data(), row.size(), CopyKind::HostToDevice,
                       stream);
        }
        break;
      }
      case GraphNodeSpec::Host: s = replay_.launch_host_func(stream, n.fn, n.user); break;
      case GraphNodeSpec::Empty: break;
      case GraphNodeSpec::MemAlloc: s = pools_.graph_mem_launch_alloc(mem_addr(n)); break;
      case GraphNodeSpec::MemFree: s = pools_.graph_mem_launch_free(mem_addr(n)); break;
    }
    if (s != Status::Success) {
      if (replay_.timing_node) replay_.timing_node(exec, x.order.size(), nullptr, stream);
      return s;
    }
  }
  if (replay_.timing_node) replay_.timing_node(exec, x.order.size(), nullptr, stream);
  return Status::Success;
}

// ---------------------------------------------------------------- stream capture

Status GraphManager::stream_begin_capture(void* stream, int mode) {
  if (Status s = streams_.check_stream(stream); s != Status::Success) return s;
  if (mode < 0 || mode > 2) return Status::InvalidValue;
  // CUDA: the legacy NULL stream cannot be captured.
  if (is_legacy(stream)) return kStreamCaptureUnsupported;
  auto& st = (*st_);
  if (st.captures.count(stream)) return kIllegalState;
  auto g = std::make_unique<Graph>();
  auto c = std::make_shared<Capture>();
  c->graph = g.get();
  c->mode = mode;
  c->id = st.next_capture_id++;
  c->origin = stream;
  c->deps[stream] = {};
  st.graphs.emplace(g.get(), std::move(g));
  st.captures.emplace(stream, std::move(c));
  return Status::Success;
}

namespace {
// True if every node in `nodes` is in `roots` or an ancestor of one of them.
bool all_reach(const std::vector<Node*>& nodes, const std::vector<Node*>& roots) {
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    todo.insert(todo.end(), n->deps.begin(), n->deps.end());
  }
  return std::all_of(nodes.begin(), nodes.end(), [&](const Node* n) { return seen.count(n) > 0; });
}
}  // namespace

Status GraphManager::stream_end_capture(void* stream, void** graph) {
  if (!graph) return Status::InvalidValue;
  if (Status s = streams_.check_stream(stream); s != Status::Success) return s;
  auto& st = (*st_);
  auto it = st.captures.find(stream);
  if (it == st.captures.end()) return kIllegalState;
  std::shared_ptr<Capture> c = it->second;
  if (c->origin != stream) return kStreamCaptureUnmatched;  // ended on a joined stream
  // Every stream that joined must have been joined back into the origin.
  bool joined = true;
  for (auto& [s, d] : c->deps)
    if (s != stream && !all_reach(d, c->deps[stream])) joined = false;
  std::erase_if(st.captures, [&](const auto& kv) { return kv.second == c; });
  if (c->invalidated || !joined) {
    // The partial graph is discarded, as CUDA does.
    void* g = c->graph;
    for (auto& n : c->graph->nodes) {
      if (n->spec.type == GraphNodeSpec::MemAlloc) pools_.graph_mem_release(mem_addr(n->spec), g);
      if (n->spec.type == GraphNodeSpec::MemFree) pools_.graph_mem_drop_free(mem_addr(n->spec), g);
      st.nodes.erase(n.get());
    }
    st.graphs.erase(g);
    *graph = nullptr;
    return joined ? kStreamCaptureInvalidated : kStreamCaptureUnjoined;
  }
  *graph = c->graph;
  return Status::Success;
}

Status GraphManager::stream_capture_info(void* stream, CaptureStatus* status, uint64_t* id, void** graph,
                                    void* const** deps, size_t* ndeps) {
  if (!status) return Status::InvalidValue;
  if (Status s = streams_.check_stream(stream); s != Status::Success) return s;
  auto& st = (*st_);
  auto it = st.captures.find(stream);
  if (it == st.captures.end()) {
    *status = CaptureStatus::None;
    return Status::Success;
  }
  *status = it->second->invalidated ? CaptureStatus::Invalidated : CaptureStatus::Active;
  if (id) *id = it->second->id;
  if (graph) *graph = it->second->graph;
  std::vector<void*>& out = st.info_deps[stream];
  const std::vector<Node*>& d = it->second->deps[stream];
  out.assign(d.begin(), d.end());
  if (deps) *deps = out.empty() ? nullptr : out.data();
  if (ndeps) *ndeps = out.size();
  return Status::Success;
}

// Hooks -------------------------------------------------------------------

std::optional<Status> GraphManager::capture_forbid(void* stream) {
  if (!st_ || st_->captures.empty()) return std::nullopt;
  auto& st = *st_;
  if (auto it = st.captures.find(stream); it != st.captures.end()) {
    it->second->invalidated = true;
    return kStreamCaptureUnsupported;
  }
  if (is_legacy(stream)) {
    // Legacy-stream work synchronizes with every blocking stream; a global
    // or thread-local capture on one cannot allow that (cudaErrorStreamCaptureImplicit).
    bool hit = false;
    for (auto& [s, c] : st.captures) {
      const StreamsAndEvents::Stream* st = streams_.find_stream(s);
      bool blocking = !st || !(st->flags & kStreamNonBlocking);
      if (blocking && c->mode != 2) {
        c->invalidated = true;
        hit = true;
      }
    }
    if (hit) return kStreamCaptureImplicit;
  }
  return std::nullopt;
}

std::optional<Status> GraphManager::capture_unsafe_call(int thread_mode) {
  if (!st_ || st_->captures.empty() || thread_mode == 2) return std::nullopt;  // 2: relaxed
  const std::thread::id me = std::this_thread::get_id();
  bool hit = false;
  for (auto& [s, c] : st_->captures) {
    const bool forbids = c->thread == me ? c->mode != 2 : thread_mode == 0 && c->mode == 0;
    if (forbids) c->invalidated = hit = true;
  }
  if (hit) return kStreamCaptureUnsupported;
  return std::nullopt;
}

namespace {
// Appends a node to the stream's chain in the capture; returns it.
Node* capture_append(Capture& c, void* stream, std::unordered_map<void*, Node*>& nodes, GraphNodeSpec spec) {
  auto n = std::make_unique<Node>();
  n->graph = c.graph;
  n->spec = std::move(spec);
  std::vector<Node*>& d = c.deps[stream];
  n->deps = d;
  d = {n.get()};
  Node* raw = n.get();
  nodes.emplace(raw, raw);
  c.graph->nodes.push_back(std::move(n));
  return raw;
}
}  // namespace

// The capture `stream` belongs to: nullopt with *out null when it is not
// capturing and may run the work; a status when the work is refused.
#define SOFTGPU_CAPTURE_LOOKUP(stream)                                        \
  if (!st_ || st_->captures.empty()) return std::nullopt;            \
  auto it_ = st_->captures.find(stream);                                 \
  if (it_ == st_->captures.end()) return capture_forbid(stream);         \
  if (it_->second->invalidated) return kStreamCaptureInvalidated;            \
  Capture& cap_ = *it_->second

std::optional<Status> GraphManager::capture_launch(const void* kernel, Dim3 grid, Dim3 block, void** args, size_t shared,
                                              void* stream) {
  SOFTGPU_CAPTURE_LOOKUP(stream);
  GraphNodeSpec spec;
  spec.type = GraphNodeSpec::Kernel;
  spec.kernel = kernel;
  spec.grid = grid;
  spec.block = block;
  spec.shared_bytes = shared;
  spec.args = args;
  if (Status s = pack_kernel_args(spec); s != Status::Success) return s;
  capture_append(cap_, stream, st_->nodes, std::move(spec));
  return Status::Success;
}

std::optional<Status> GraphManager::capture_memcpy(void* dst, const void* src, size_t n, CopyKind kind, void* stream) {
  SOFTGPU_CAPTURE_LOOKUP(stream);
  GraphNodeSpec spec;
  spec.type = GraphNodeSpec::Memcpy;
  spec.dst = dst;
  spec.src = src;
  spec.width = n;
  spec.dpitch = spec.spitch = n;
  spec.kind = kind;
  capture_append(cap_, stream, st_->nodes, std::move(spec));
  return Status::Success;
}

std::optional<Status> GraphManager::capture_memset(void* dst, int value, size_t n, void* stream) {
  SOFTGPU_CAPTURE_LOOKUP(stream);
  GraphNodeSpec spec;
  spec.type = GraphNodeSpec::Memset;
  spec.dst = dst;
  spec.value = static_cast<unsigned>(value) & 0xff;
  spec.element_size = 1;
  spec.width = n;
  spec.dpitch = n;
  capture_append(cap_, stream, st_->nodes, std::move(spec));
  return Status::Success;
}

std::optional<Status> GraphManager::capture_host(void* stream, HostCallback fn, void* user) {
  SOFTGPU_CAPTURE_LOOKUP(stream);
  if (!fn) return Status::InvalidValue;
  GraphNodeSpec spec;
  spec.type = GraphNodeSpec::Host;
  spec.fn = fn;
  spec.user = user;
  capture_append(cap_, stream, st_->nodes, std::move(spec));
  return Status::Success;
}

// cudaMallocAsync during capture: an allocation node owned by the graph.
std::optional<Status> GraphManager::capture_malloc_async(void** out, size_t size, const PoolProps& props, void* stream) {
  SOFTGPU_CAPTURE_LOOKUP(stream);
  if (size == 0) {
    *out = nullptr;
    return Status::Success;
  }
  GraphNodeSpec spec;
  spec.type = GraphNodeSpec::MemAlloc;
  spec.width = size;
  spec.pool = props;
  if (Status s = pools_.graph_mem_node(spec, cap_.graph, false); s != Status::Success) return s;
  *out = spec.dst;
  capture_append(cap_, stream, st_->nodes, std::move(spec));
  return Status::Success;
}

// cudaFreeAsync during capture: a free node, for graph allocations only.
std::optional<Status> GraphManager::capture_free_async(void* p, void* stream) {
  SOFTGPU_CAPTURE_LOOKUP(stream);
  if (!p) return Status::Success;  // as outside capture: nothing to free, no node
  GraphNodeSpec spec;
  spec.type = GraphNodeSpec::MemFree;
  spec.dst = p;
  bool precedes = alloc_precedes(cap_.deps[stream], mem_addr(spec));
  if (Status s = pools_.graph_mem_node(spec, cap_.graph, precedes); s != Status::Success) return s;
  capture_append(cap_, stream, st_->nodes, std::move(spec));
  return Status::Success;
}

#undef SOFTGPU_CAPTURE_LOOKUP

std::optional<Status> GraphManager::capture_event_record(void* event, void* stream) {
  if (!st_) return std::nullopt;
  auto& st = *st_;
  auto it = st.captures.find(stream);
  if (it == st.captures.end()) {
    st.events.erase(event);  // recorded outside any capture again
    return std::nullopt;
  }
  if (it->second->invalidated) return kStreamCaptureInvalidated;
  st.events[event] = CapturedEvent{it->second, it->second->deps[stream]};
  return Status::Success;
}

std::optional<Status> GraphManager::capture_wait_event(void* stream, void* event) {
  if (!st_) return std::nullopt;
  auto& st = *st_;
  auto ev = st.events.find(event);
  std::shared_ptr<Capture> c = ev == st.events.end() ? nullptr : ev->second.capture.lock();
  if (!c) return std::nullopt;  // not an event of a capture in progress: an ordinary wait
  auto it = st.captures.find(stream);
  if (it != st.captures.end() && it->second != c) return kStreamCaptureIsolation;  // two captures
  if (it == st.captures.end()) {
    if (is_legacy(stream)) return kStreamCaptureImplicit;
    st.captures.emplace(stream, c);  // the stream joins the capture
    c->deps[stream] = ev->second.nodes;
    return Status::Success;
  }
  if (c->invalidated) return kStreamCaptureInvalidated;
  std::vector<Node*>& d = c->deps[stream];
  for (Node* n : ev->second.nodes)
    if (std::find(d.begin(), d.end(), n) == d.end()) d.push_back(n);
  return Status::Success;
}

void GraphManager::capture_stream_destroyed(void* stream) {
  if (!st_) return;
  // A joined stream leaves the capture; its dependencies stay for the join check.
  auto it = st_->captures.find(stream);
  if (it != st_->captures.end() && it->second->origin != stream) st_->captures.erase(it);
}

}  // namespace softgpu::runtime

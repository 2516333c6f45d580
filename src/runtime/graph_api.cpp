// The facade's graph and capture entry points: the prologue (lock, init
// and sticky errors, last error) around the GraphManager component (graph.h).
#include "runtime/graph.h"
#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

Status Runtime::graph_create(void** out, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_create(out, flags));
}

Status Runtime::graph_destroy(void* graph) {
  SOFTGPU_API_BEGIN(false);
  return finish(graphs_->graph_destroy(graph));
}

Status Runtime::graph_add_node(void** out, void* graph, void* const* deps, size_t ndeps, const GraphNodeSpec& spec) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_add_node(out, graph, deps, ndeps, spec));
}

Status Runtime::graph_node_get(void* node, GraphNodeSpec* out) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_node_get(node, out));
}

Status Runtime::graph_node_set(void* node, const GraphNodeSpec& spec) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_node_set(node, spec));
}

Status Runtime::graph_add_dependencies(void* graph, void* const* from, void* const* to, size_t n) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_add_dependencies(graph, from, to, n));
}

Status Runtime::graph_nodes(void* graph, void** nodes, size_t* count) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_nodes(graph, nodes, count));
}

Status Runtime::graph_clone(void** out, void* graph) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_clone(out, graph));
}

Status Runtime::graph_instantiate(void** out, void* graph, unsigned long long flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_instantiate(out, graph, flags));
}

Status Runtime::graph_exec_destroy(void* exec) {
  SOFTGPU_API_BEGIN(false);
  return finish(graphs_->graph_exec_destroy(exec));
}

Status Runtime::graph_exec_set_node(void* exec, void* node, const GraphNodeSpec& spec) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_exec_set_node(exec, node, spec));
}

Status Runtime::graph_exec_update(void* exec, void* graph, ExecUpdateResult* result) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_exec_update(exec, graph, result));
}

Status Runtime::graph_launch(void* exec, void* stream) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->graph_launch(exec, stream));
}

Status Runtime::stream_begin_capture(void* stream, int mode) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->stream_begin_capture(stream, mode));
}

Status Runtime::stream_end_capture(void* stream, void** graph) {
  SOFTGPU_API_BEGIN(false);
  return finish(graphs_->stream_end_capture(stream, graph));
}

Status Runtime::stream_capture_info(void* stream, CaptureStatus* status, uint64_t* id, void** graph,
                                    void* const** deps, size_t* ndeps) {
  SOFTGPU_API_BEGIN(true);
  return finish(graphs_->stream_capture_info(stream, status, id, graph, deps, ndeps));
}

}  // namespace softgpu::runtime

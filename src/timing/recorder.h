// Turns the executor's per-instruction records into CTA traces for the SM
// model: pipe and register sets from the decoded program's facts, global
// accesses coalesced into lines and sectors, shared accesses into bank
// wavefronts, barriers and async-copy waits. A CTA's trace goes to the sink
// when the CTA ends, on the thread that ran it.
#pragma once
#include <functional>
#include <memory>

#include "exec/listener.h"
#include "timing/trace.h"

namespace softgpu::timing {

class TraceRecorder : public exec::ExecutionListener {
 public:
  using Sink = std::function<void(std::unique_ptr<CtaTrace>)>;
  // `wanted(cta_linear)`: whether to trace this CTA (sampling); others cost
  // one call per CTA.
  TraceRecorder(Sink sink, std::function<bool(uint32_t)> wanted = {})
      : sink_(std::move(sink)), wanted_(std::move(wanted)) {}

  void* cta_begin(uint32_t cta_linear, Dim3 ctaid, uint32_t warps) override;
  void step(const exec::WarpStep& s) override;
  void cta_end(uint32_t cta_linear, void* ctx) override;

  // The conversion of one record, for tests and other consumers.
  static void append(CtaTrace& t, const exec::WarpStep& s);

 private:
  Sink sink_;
  std::function<bool(uint32_t)> wanted_;
};

}  // namespace softgpu::timing

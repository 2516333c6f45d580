// Streams and events (runtime/streams.h): handle tables and validation.
#include "runtime/streams.h"

#include <algorithm>

#include "runtime/runtime.h"

namespace softgpu::runtime {

Status StreamsAndEvents::check_stream(void* stream) const {
  if (stream == nullptr || stream == kLegacyStream || stream == kPerThreadStream) return Status::Success;
  return streams_.count(stream) ? Status::Success : Status::InvalidResourceHandle;
}

const StreamsAndEvents::Stream* StreamsAndEvents::find_stream(void* stream) const {
  auto it = streams_.find(stream);
  return it == streams_.end() ? nullptr : it->second.get();
}

Status StreamsAndEvents::create_stream(void** out, unsigned flags, int priority) {
  if (!out || (flags & ~kStreamNonBlocking)) return Status::InvalidValue;
  auto s = std::make_unique<Stream>();
  s->flags = flags;
  s->priority = std::clamp(priority, -5, 0);  // priorities are clamped, as CUDA does
  s->id = next_id_++;
  void* h = s.get();
  streams_.emplace(h, std::move(s));
  *out = h;
  return Status::Success;
}

bool StreamsAndEvents::destroy_stream(void* stream) {
  attrs_.erase(stream);
  return streams_.erase(stream) != 0;
}

const StreamsAndEvents::AttrValue* StreamsAndEvents::attribute(void* stream, int id) const {
  auto s = attrs_.find(stream);
  if (s == attrs_.end()) return nullptr;
  auto a = s->second.find(id);
  return a == s->second.end() ? nullptr : &a->second;
}

void StreamsAndEvents::set_priority(void* stream, int priority) {
  if (auto it = streams_.find(stream); it != streams_.end()) it->second->priority = std::clamp(priority, -5, 0);
}

bool StreamsAndEvents::has_event(void* event) const { return events_.count(event) != 0; }

Status StreamsAndEvents::create_event(void** out, unsigned flags) {
  // cudaEventBlockingSync 1 | cudaEventDisableTiming 2 | cudaEventInterprocess 4;
  // interprocess events must also disable timing.
  if (!out || (flags & ~0x7u) || ((flags & 0x4) && !(flags & kEventDisableTiming))) return Status::InvalidValue;
  auto e = std::make_unique<Event>();
  e->flags = flags;
  void* h = e.get();
  events_.emplace(h, std::move(e));
  *out = h;
  return Status::Success;
}

bool StreamsAndEvents::destroy_event(void* event) { return events_.erase(event) != 0; }

StreamsAndEvents::Event* StreamsAndEvents::find_event(void* event) {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : it->second.get();
}

Status StreamsAndEvents::elapsed(float* ms, void* start, void* end) const {
  if (!ms) return Status::InvalidValue;
  auto a = events_.find(start), b = events_.find(end);
  if (a == events_.end() || b == events_.end()) return Status::InvalidResourceHandle;
  const Event& ea = *a->second;
  const Event& eb = *b->second;
  // CUDA: unrecorded events or events without timing give InvalidResourceHandle.
  if ((ea.flags | eb.flags) & kEventDisableTiming) return Status::InvalidResourceHandle;
  if (!ea.when || !eb.when) return Status::InvalidResourceHandle;
  // Under --timing both carry the simulated clock: GPU time, not host time.
  if (ea.simulated_us && eb.simulated_us) *ms = float((*eb.simulated_us - *ea.simulated_us) / 1000.0);
  else *ms = std::chrono::duration<float, std::milli>(*eb.when - *ea.when).count();
  return Status::Success;
}

void StreamsAndEvents::clear() {
  streams_.clear();
  events_.clear();
  attrs_.clear();
}

}  // namespace softgpu::runtime

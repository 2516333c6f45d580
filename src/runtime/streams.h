// The runtime's streams-and-events component: the stream and event handles
// of one Runtime (which owns it; src/runtime/streams.cpp) and what they
// carry (a stream's flags and priority, an event's flags and recorded time).
// Handles are validated here; the work on them runs in the facade, which
// also calls the capture and pool hooks around these calls.
#pragma once
#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "common/types.h"

namespace softgpu::runtime {

class StreamsAndEvents {
 public:
  // id: cudaStreamGetId's, unique over the Runtime's life (the default
  // streams have 1 (null and legacy) and 2 (per-thread)).
  struct Stream { unsigned flags = 0; int priority = 0; uint64_t id = 0; };
  // A cudaStreamSetAttribute value as the C ABI gave it (cudaLaunchAttributeValue,
  // opaque here).
  using AttrValue = std::array<std::byte, 64>;
  struct Event {
    unsigned flags = 0;
    std::optional<std::chrono::steady_clock::time_point> when;
    std::optional<double> simulated_us;  // under --timing: the simulated clock when recorded
  };

  // Success for the default streams (null, legacy, per-thread) and live
  // streams; InvalidResourceHandle otherwise.
  Status check_stream(void* stream) const;
  // A created stream (null for the default streams and unknown handles).
  const Stream* find_stream(void* stream) const;
  Status create_stream(void** out, unsigned flags, int priority);
  bool destroy_stream(void* stream);  // false: not a created stream
  // Attributes set on a stream (default streams included), by attribute id;
  // the handle must be valid (check_stream).
  void set_attribute(void* stream, int id, const AttrValue& v) { attrs_[stream][id] = v; }
  const AttrValue* attribute(void* stream, int id) const;  // null: never set
  void set_priority(void* stream, int priority);          // a created stream's

  bool has_event(void* event) const;
  Status create_event(void** out, unsigned flags);
  bool destroy_event(void* event);  // false: not an event
  Event* find_event(void* event);
  Status elapsed(float* ms, void* start, void* end) const;

  void clear();  // cudaDeviceReset

 private:
  std::unordered_map<void*, std::unique_ptr<Stream>> streams_;
  std::unordered_map<void*, std::unique_ptr<Event>> events_;
  std::unordered_map<void*, std::map<int, AttrValue>> attrs_;
  uint64_t next_id_ = 3;
};

}  // namespace softgpu::runtime

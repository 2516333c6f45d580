// The state a Runtime owns (textures, per-thread last errors and call
// configurations) belongs to that instance: two runtimes do not see each
// other's, and a destroyed runtime leaves nothing for the next one.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "runtime/runtime.h"
#include "runtime_fixture.h"

namespace softgpu::runtime::testing {
namespace {

// A float texture over `n` floats of linear device memory.
Status make_texture(Runtime& rt, uint64_t* out, void** mem) {
  constexpr size_t n = 256;
  if (Status s = rt.malloc(mem, n * sizeof(float)); s != Status::Success) return s;
  ResourceSpec res;
  res.kind = ResourceSpec::Linear;
  res.ptr = *mem;
  res.desc = ChannelDesc{32, 0, 0, 0, 2};
  res.size_bytes = n * sizeof(float);
  return texture_create(rt, out, res, TextureSpec{});
}

TEST(RuntimeComponents, TwoRuntimesHaveIndependentTextures) {
  Runtime a(test_gpu(), test_options()), b(test_gpu(), test_options());
  uint64_t tex = 0;
  void* mem = nullptr;
  ASSERT_EQ(make_texture(a, &tex, &mem), Status::Success);
  ResourceSpec got;
  EXPECT_EQ(texture_resource(a, tex, &got), Status::Success);
  EXPECT_EQ(got.ptr, mem);
  EXPECT_EQ(texture_resource(b, tex, &got), Status::InvalidValue);
  EXPECT_EQ(texture_destroy(b, tex), Status::InvalidValue);
  EXPECT_NE(texture_registry(a), texture_registry(b));

  void* arr = nullptr;
  ASSERT_EQ(array_create(a, &arr, ChannelDesc{32, 0, 0, 0, 2}, 16, 16, 0, 0), Status::Success);
  ArrayInfo info;
  EXPECT_EQ(array_info(a, arr, &info), Status::Success);
  EXPECT_EQ(info.width, 16u);
  EXPECT_EQ(array_info(b, arr, &info), Status::InvalidResourceHandle);
  EXPECT_EQ(array_free(b, arr), Status::InvalidValue);
  EXPECT_EQ(array_free(a, arr), Status::Success);
  EXPECT_EQ(texture_destroy(a, tex), Status::Success);
  EXPECT_EQ(a.free(mem), Status::Success);
}

TEST(RuntimeComponents, TwoRuntimesHaveIndependentLastErrors) {
  Runtime a(test_gpu(), test_options()), b(test_gpu(), test_options());
  EXPECT_EQ(a.malloc(nullptr, 16), Status::InvalidValue);
  EXPECT_EQ(b.last_error(false), Status::Success);
  EXPECT_EQ(b.last_error(true), Status::Success);
  EXPECT_EQ(a.last_error(false), Status::InvalidValue);  // peek: kept
  EXPECT_EQ(a.last_error(true), Status::InvalidValue);   // get: reset
  EXPECT_EQ(a.last_error(false), Status::Success);

  EXPECT_EQ(b.stream_destroy(reinterpret_cast<void*>(0x1234)), Status::InvalidResourceHandle);
  EXPECT_EQ(a.last_error(true), Status::Success);
  EXPECT_EQ(b.last_error(true), Status::InvalidResourceHandle);
}

TEST(RuntimeComponents, LastErrorsAndCallConfigurationsArePerThread) {
  Runtime rt(test_gpu(), test_options());
  EXPECT_EQ(rt.malloc(nullptr, 16), Status::InvalidValue);
  CallConfig c;
  c.grid = Dim3{7, 1, 1};
  rt.push_call_config(c);
  std::thread([&] {
    EXPECT_EQ(rt.last_error(false), Status::Success);
    CallConfig out;
    EXPECT_EQ(rt.pop_call_config(&out), Status::InvalidValue);
    EXPECT_EQ(rt.event_destroy(reinterpret_cast<void*>(0x1234)), Status::InvalidResourceHandle);
    EXPECT_EQ(rt.last_error(true), Status::InvalidResourceHandle);
    EXPECT_EQ(rt.last_error(true), Status::Success);
  }).join();
  EXPECT_EQ(rt.last_error(true), Status::InvalidValue);
  CallConfig out;
  ASSERT_EQ(rt.pop_call_config(&out), Status::Success);
  EXPECT_EQ(out.grid.x, 7u);
  EXPECT_EQ(rt.pop_call_config(&out), Status::InvalidValue);
}

TEST(RuntimeComponents, CallConfigurationsArePerRuntime) {
  Runtime a(test_gpu(), test_options()), b(test_gpu(), test_options());
  CallConfig c;
  c.block = Dim3{32, 1, 1};
  a.push_call_config(c);
  CallConfig out;
  EXPECT_EQ(b.pop_call_config(&out), Status::InvalidValue);
  ASSERT_EQ(a.pop_call_config(&out), Status::Success);
  EXPECT_EQ(out.block.x, 32u);
}

TEST(RuntimeComponents, TwoRuntimesHaveIndependentStreamsGraphsAndPools) {
  Runtime a(test_gpu(), test_options()), b(test_gpu(), test_options());
  void *stream = nullptr, *event = nullptr, *graph = nullptr, *pool = nullptr;
  ASSERT_EQ(a.stream_create(&stream, 0, 0), Status::Success);
  ASSERT_EQ(a.event_create(&event, 0), Status::Success);
  ASSERT_EQ(a.graph_create(&graph, 0), Status::Success);
  ASSERT_EQ(a.mempool_create(&pool, PoolProps{}), Status::Success);
  EXPECT_EQ(b.stream_query(stream), Status::InvalidResourceHandle);
  EXPECT_EQ(b.event_query(event), Status::InvalidResourceHandle);
  size_t count = 0;
  EXPECT_EQ(b.graph_nodes(graph, nullptr, &count), Status::InvalidValue);
  EXPECT_EQ(b.mempool_trim(pool, 0), Status::InvalidValue);
  void *pa = nullptr, *pb = nullptr;
  EXPECT_EQ(a.mempool_default(&pa, 0), Status::Success);
  EXPECT_EQ(b.mempool_default(&pb, 0), Status::Success);
  EXPECT_NE(pa, pb);
  EXPECT_EQ(a.stream_query(stream), Status::Success);
  EXPECT_EQ(a.graph_nodes(graph, nullptr, &count), Status::Success);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(a.mempool_trim(pool, 0), Status::Success);
  EXPECT_EQ(b.last_error(true), Status::InvalidValue);
  EXPECT_EQ(a.last_error(true), Status::Success);
}

TEST(RuntimeComponents, ADestroyedRuntimeLeavesNothingBehind) {
  uint64_t tex = 0;
  for (int round = 0; round < 3; ++round) {
    // A new runtime may well land at the old one's address.
    auto rt = std::make_unique<Runtime>(test_gpu(), test_options());
    EXPECT_EQ(rt->last_error(false), Status::Success) << "round " << round;
    CallConfig out;
    EXPECT_EQ(rt->pop_call_config(&out), Status::InvalidValue) << "round " << round;
    if (round > 0) {
      ResourceSpec got;
      EXPECT_EQ(texture_resource(*rt, tex, &got), Status::InvalidValue) << "round " << round;
    }
    // Leave state behind: a texture, an error, a configuration, a stream.
    void* mem = nullptr;
    ASSERT_EQ(make_texture(*rt, &tex, &mem), Status::Success);
    EXPECT_EQ(rt->malloc(nullptr, 16), Status::InvalidValue);
    rt->push_call_config(CallConfig{});
    void* stream = nullptr;
    ASSERT_EQ(rt->stream_create(&stream, 0, 0), Status::Success);
    rt.reset();
  }
}

}  // namespace
}  // namespace softgpu::runtime::testing

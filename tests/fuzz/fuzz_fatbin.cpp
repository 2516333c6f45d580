// libFuzzer target: the fatbin reader on arbitrary bytes. Also built into
// fuzz_replay_fatbin (g++) to replay the committed corpus in every build.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fatbin/fatbin.h"

using namespace softgpu::fatbin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Own copy, 8-byte aligned like a real section.
  std::vector<uint64_t> store(size / 8 + 1);
  if (size) std::memcpy(store.data(), data, size);
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(store.data()), size);

  if (auto c = read_container(bytes)) (void)select_ptx(c.value());
  (void)read_section(bytes);

  // read_wrapper trusts in-process sizes, so only hand it a container whose
  // header fits in the input (that is what a real program guarantees).
  if (size >= 16) {
    uint16_t hsize;
    uint64_t payload;
    std::memcpy(&hsize, data + 6, 2);
    std::memcpy(&payload, data + 8, 8);
    if (hsize >= 16 && hsize <= size && payload <= size - hsize) {
      struct { uint32_t magic, version; const void* data; const void* fatbins; } w{
          kWrapperMagic, 1, store.data(), nullptr};
      (void)read_wrapper(&w);
      const void* objs[] = {store.data(), nullptr};
      w.version = 2;
      w.fatbins = objs;
      (void)read_wrapper(&w);
    }
  }

  // Raw decompressors: byte 0 picks one, bytes 1-2 the claimed output size.
  if (size >= 3) {
    size_t usize = size_t(data[1]) | size_t(data[2]) << 8;
    auto src = bytes.subspan(3);
    if (data[0] & 1) (void)decompress_lz4_block(src, usize);
    else (void)decompress_zstd(src, usize);
  }
  return 0;
}

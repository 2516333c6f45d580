// Stream queries libraries make before choosing a code path (PyTorch, CCCL's
// cuda::stream_ref users): priority range, flags and priority of created and
// default streams, the stream's device, and capture status (never capturing).
#include "../check.cuh"

int main() {
  int least = 1, greatest = 1;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  REQUIRE(least == 0 && greatest == -5, "priority range got [%d, %d] expected [0, -5]", least, greatest);

  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, -3));
  CHECK(cudaStreamCreateWithPriority(&s2, cudaStreamDefault, -100));  // clamped to the range
  unsigned flags = 99;
  int prio = 99, dev = 99;
  CHECK(cudaStreamGetFlags(s1, &flags));
  REQUIRE(flags == cudaStreamNonBlocking, "s1 flags %u", flags);
  CHECK(cudaStreamGetPriority(s1, &prio));
  REQUIRE(prio == -3, "s1 priority %d", prio);
  CHECK(cudaStreamGetFlags(s2, &flags));
  REQUIRE(flags == cudaStreamDefault, "s2 flags %u", flags);
  CHECK(cudaStreamGetPriority(s2, &prio));
  REQUIRE(prio == greatest, "s2 priority %d expected %d", prio, greatest);
  CHECK(cudaStreamGetPriority(0, &prio));
  REQUIRE(prio == 0, "default stream priority %d", prio);
  CHECK(cudaStreamGetDevice(s1, &dev));
  REQUIRE(dev == 0, "s1 device %d", dev);

  cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
  CHECK(cudaStreamIsCapturing(s1, &st));
  REQUIRE(st == cudaStreamCaptureStatusNone, "s1 capture status %d", (int)st);
  st = cudaStreamCaptureStatusActive;
  CHECK(cudaStreamIsCapturing(0, &st));
  REQUIRE(st == cudaStreamCaptureStatusNone, "default stream capture status %d", (int)st);
  st = cudaStreamCaptureStatusActive;
  CHECK(cudaStreamGetCaptureInfo(s2, &st));
  REQUIRE(st == cudaStreamCaptureStatusNone, "s2 capture info status %d", (int)st);
  EXPECT_ERR(cudaStreamGetFlags(s1, nullptr), cudaErrorInvalidValue);
  // The failed call is the last error (as NVIDIA's runtime records it, seen
  // with this program linked statically); reading it clears it.
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  CHECK(cudaGetLastError());

  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  std::printf("PASS stream_queries\n");
  return 0;
}

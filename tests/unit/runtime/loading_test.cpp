// Module loading through the runtime: a failure is reported at the call
// that needs the module (a launch, a symbol), naming the kernel or
// variable, once per kernel; an unused bad module is harmless.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fatbin/fatbin.h"
#include "runtime_fixture.h"

namespace softgpu::runtime::testing {
namespace {

constexpr Status kInvalidKernelImage = static_cast<Status>(200);

struct Wrapper {  // __fatBinC_Wrapper_t
  uint32_t magic, version;
  const void* data;
  const void* fatbins;
};

std::vector<uint64_t> load_data(const std::string& name) {
  std::ifstream f(std::string(FATBIN_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  std::string s{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  std::vector<uint64_t> v(s.size() / 8 + 1);
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

const std::string kVadd = "'vadd(float const*, float const*, float*, int)' (_Z4vaddPKfS0_Pfi)";

class Loading : public RuntimeTest {
 protected:
  // Launches the kernel registered as `stub`, capturing stderr.
  Status launch(const void* stub, std::string* err) {
    void* args[] = {nullptr, nullptr, nullptr, nullptr};
    ::testing::internal::CaptureStderr();
    Status s = rt.launch(stub, Dim3{1, 1, 1}, Dim3{32, 1, 1}, args, 0, nullptr);
    *err = ::testing::internal::GetCapturedStderr();
    return s;
  }
  char stub = 0, other = 0;
};

TEST_F(Loading, KernelWithoutPtxFailsAtItsLaunchNamingIt) {
  auto sass = load_data("vadd_sass_only.fatbin");
  Wrapper w{fatbin::kWrapperMagic, 1, sass.data(), nullptr};
  void* h = rt.register_fatbin(&w);
  rt.register_function(h, &stub, "_Z4vaddPKfS0_Pfi");
  // Nothing fails before the launch: device queries, memory.
  void* p = nullptr;
  ASSERT_EQ(rt.malloc(&p, 64), Status::Success);
  std::string err;
  EXPECT_EQ(launch(&stub, &err), Status::NoKernelImageForDevice);
  EXPECT_EQ(err, "softgpu: cannot run kernel " + kVadd +
                     ": the fatbinary contains no PTX (only machine code for: sm_80); softgpu runs PTX. Rebuild "
                     "with PTX embedded, e.g. default nvcc flags or `-gencode arch=compute_80,code=compute_80` next "
                     "to your code=sm_XX options\n");
  // Every launch fails the same way; the message is not repeated.
  EXPECT_EQ(launch(&stub, &err), Status::NoKernelImageForDevice);
  EXPECT_EQ(err, "");
  EXPECT_EQ(rt.last_error(true), Status::NoKernelImageForDevice);
  // Not sticky: the device still works.
  EXPECT_EQ(rt.free(p), Status::Success);
  FuncAttributes fa;
  EXPECT_EQ(rt.func_attributes(&fa, &stub), Status::NoKernelImageForDevice);
}

// The bytes copied to end at an inaccessible page, as a fatbin section can end
// at the end of its segment: what follows them is never readable, whatever
// the heap around the test looks like.
class Guarded {
 public:
  explicit Guarded(const std::vector<uint64_t>& v) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE)), bytes = v.size() * 8;
    len_ = (bytes / page + 2) * page;
    void* m = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    base_ = static_cast<std::byte*>(m);
    mprotect(base_ + len_ - page, page, PROT_NONE);
    data_ = base_ + len_ - page - bytes;
    std::memcpy(data_, v.data(), bytes);
  }
  ~Guarded() { if (base_) munmap(base_, len_); }
  const void* data() const { return data_; }

 private:
  size_t len_ = 0;
  std::byte* base_ = nullptr;
  std::byte* data_ = nullptr;
};

TEST_F(Loading, CorruptFatbinFailsAtLaunchWithInvalidKernelImage) {
  auto bytes = load_data("vadd_default.fatbin");
  bytes[0] = (bytes[0] & ~(uint64_t(0xffff) << 48)) | (uint64_t(0xffff) << 48);  // container header size
  Guarded good(bytes);
  ASSERT_NE(good.data(), nullptr);
  Wrapper w{fatbin::kWrapperMagic, 1, good.data(), nullptr};
  void* h = rt.register_fatbin(&w);
  rt.register_function(h, &stub, "_Z4vaddPKfS0_Pfi");
  rt.register_function(h, &other, "other_kernel");
  std::string err;
  EXPECT_EQ(launch(&stub, &err), kInvalidKernelImage);
  EXPECT_EQ(err.find("softgpu: cannot run kernel " + kVadd +
                     ": the program's embedded fatbinary is corrupt: fatbin wrapper data: container header size "
                     "65535 + payload size 3784 runs past the end of readable memory"),
            0u)
      << err;
  // Another kernel of the same module names itself.
  EXPECT_EQ(launch(&other, &err), kInvalidKernelImage);
  EXPECT_EQ(err.find("softgpu: cannot run kernel 'other_kernel': the program's embedded fatbinary is corrupt"), 0u)
      << err;
}

TEST_F(Loading, BadPtxIsReportedOnceWithTheKernelName) {
  void* h = rt.register_ptx({".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { Bogus; }\n"},
                            "bad.ptx");
  rt.register_function(h, &stub, "k");
  std::string err;
  EXPECT_EQ(launch(&stub, &err), Status::InvalidPtx);
  EXPECT_EQ(err.find("softgpu: cannot run kernel 'k': cannot parse the program's PTX:\nbad.ptx:4:"), 0u) << err;
  EXPECT_EQ(launch(&stub, &err), Status::InvalidPtx);
  EXPECT_EQ(err, "");
}

// An instruction softgpu does not implement fails only the kernels that
// reach it, at their launch, with cudaErrorNotSupported: not sticky, and
// the module's other kernels run before and after.
TEST_F(Loading, UnimplementedInstructionFailsOnlyItsKernel) {
  void* h = rt.register_ptx({".version 8.0\n.target sm_90a\n.address_size 64\n"
                             ".visible .entry good() { ret; }\n"
                             ".visible .entry _Z3badv() {\n\tmultimem.red.relaxed.sys.global.add.u32 [0], 1;\n\tret;\n}\n"},
                            "u.ptx");
  rt.register_function(h, &stub, "good");
  rt.register_function(h, &other, "_Z3badv");
  std::string err;
  EXPECT_EQ(launch(&stub, &err), Status::Success);
  EXPECT_EQ(err, "");
  for (int i = 0; i < 2; ++i) {  // the same answer at every launch
    EXPECT_EQ(launch(&other, &err), Status::NotSupported);
    EXPECT_EQ(err,
              "softgpu: cannot launch kernel 'bad()' (_Z3badv): softgpu does not implement instruction "
              "'multimem.red.relaxed.sys.global.add.u32' at PTX line 6 (cudaErrorNotSupported; the module's other kernels "
              "run)\n");
    EXPECT_EQ(rt.last_error(false), Status::NotSupported);  // cudaPeekAtLastError
    EXPECT_EQ(rt.synchronize(), Status::Success);             // nothing sticky
    EXPECT_EQ(rt.last_error(true), Status::NotSupported);   // cudaGetLastError, which resets it
    EXPECT_EQ(rt.last_error(true), Status::Success);
  }
  EXPECT_EQ(launch(&stub, &err), Status::Success);
  EXPECT_EQ(rt.synchronize(), Status::Success);
}

TEST_F(Loading, UnusedBadModuleIsHarmless) {
  auto sass = load_data("vadd_sass_only.fatbin");
  Wrapper bad{fatbin::kWrapperMagic, 1, sass.data(), nullptr};
  rt.register_fatbin(&bad);  // like nvcc's machine-code-only stub in every program
  void* h = rt.register_ptx({".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"});
  rt.register_function(h, &stub, "k");
  std::string err;
  EXPECT_EQ(launch(&stub, &err), Status::Success);
  EXPECT_EQ(err, "");
  EXPECT_EQ(rt.synchronize(), Status::Success);
}

}  // namespace
}  // namespace softgpu::runtime::testing

namespace softgpu::runtime::testing {
namespace {

// cudaFuncGetAttributes' numRegs comes from the machine code beside the PTX:
// `nvcc -cubin -Xptxas -v` on tests/unit/fatbin/data/vadd.cu reports "Used 12
// registers" (sm_75, nvcc 13.0). Without machine code it is the PTX's
// declared count.
TEST_F(Loading, RegisterCountComesFromTheMachineCode) {
  auto fat = load_data("vadd_default.fatbin");
  Wrapper w{fatbin::kWrapperMagic, 1, fat.data(), nullptr};
  void* h = rt.register_fatbin(&w);
  char k = 0;
  rt.register_function(h, &k, "_Z4vaddPKfS0_Pfi");
  FuncAttributes a;
  ASSERT_EQ(rt.func_attributes(&a, &k), Status::Success);
  EXPECT_EQ(a.num_regs, 12);
}

}  // namespace
}  // namespace softgpu::runtime::testing

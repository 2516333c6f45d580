// libFuzzer target: the whole loading path on arbitrary bytes taken as the
// container a __fatBinC_Wrapper_t points to (v1, and v2 with the bytes as
// the prelinked object too): registration (fatbin, functions, variables)
// -> module load (fatbin reader, decompression, PTX parse, program load)
// -> kernel queries, through the runtime's C++ API as libcudart uses it.
// The bytes end at an inaccessible page, so a read past them faults.
// Oracle: every call returns one of its documented codes. Also built into
// fuzz_replay_loading (g++) to replay the committed corpus in every build.
#include <cctype>
#include <string>
#include <vector>

#include "fatbin/fatbin.h"
#include <iostream>

#include "fuzz_util.h"
#include "runtime/runtime.h"

using namespace softgpu;
using namespace softgpu::fuzz;

namespace {

struct Wrapper {  // __fatBinC_Wrapper_t
  uint32_t magic, version;
  const void* data;
  const void* fatbins;
};

constexpr Status kInvalidKernelImage = static_cast<Status>(200);

// The .entry names in the PTX the reader finds (what nvcc would register).
std::vector<std::string> entry_names(const void* wrapper) {
  std::vector<std::string> names;
  auto img = fatbin::read_wrapper(wrapper);
  if (!img) return names;
  for (const auto* m : img->modules_to_load()) {
    const std::string& t = m->text;
    for (size_t at = t.find(".entry "); at != std::string::npos && names.size() < 8; at = t.find(".entry ", at + 7)) {
      size_t b = at + 7, e = b;
      while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_' || t[e] == '$')) ++e;
      if (e > b) names.push_back(t.substr(b, e - b));
    }
  }
  return names;
}

void load_once(const Wrapper& w) {
  runtime::Runtime rt(fuzz_gpu(), fuzz_options(1.0));
  void* h = rt.register_fatbin(&w);
  if (!h) violation("register_fatbin returned null", 0);
  // Host stubs and shadows: addresses of distinct bytes of this frame.
  char stubs[10] = {};
  std::vector<std::string> names = entry_names(&w);
  names.push_back("_Z4vaddPKfS0_Pfi");  // a name the bytes may not define
  for (size_t i = 0; i < names.size(); ++i) rt.register_function(h, &stubs[i], names[i].c_str());
  int shadow = 0;
  rt.register_var(h, &shadow, "no_such_variable", sizeof shadow, false);

  Status load = rt.init_module(h);
  if (!one_of(load, {Status::Success, kInvalidKernelImage, Status::NoKernelImageForDevice, Status::InvalidPtx,
                     Status::UnsupportedPtxVersion}))
    violation("init_module: not a documented code", int(load));
  for (size_t i = 0; i < names.size(); ++i) {
    runtime::FuncAttributes fa;
    Status s = rt.func_attributes(&fa, &stubs[i]);
    if (load != Status::Success ? s != load : !one_of(s, {Status::Success, Status::InvalidDeviceFunction}))
      violation("func_attributes disagrees with the module load", int(s));
  }
  void* addr = nullptr;
  Status s = rt.symbol_address(&addr, &shadow);
  if (load != Status::Success ? s != load : s != Status::InvalidSymbol)
    violation("symbol_address of an undefined variable", int(s));
  rt.unregister_module(h);
  runtime::FuncAttributes fa;
  if (Status u = rt.func_attributes(&fa, &stubs[0]); u != Status::InvalidDeviceFunction)
    violation("func_attributes after unregister_module", int(u));
}

}  // namespace

// libFuzzer only (the replay build keeps the messages): the runtime reports
// every load failure and kernel fault on std::cerr, which at thousands of
// inputs a second would drown the fuzzer's own output. Oracle violations
// and sanitizer reports go to stderr directly and still appear.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::cerr.rdbuf(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  GuardedCopy bytes(data, size);
  if (!bytes.data()) return 0;
  Wrapper v1{fatbin::kWrapperMagic, 1, bytes.data(), nullptr};
  load_once(v1);
  const void* objs[] = {bytes.data(), nullptr};
  Wrapper v2{fatbin::kWrapperMagic, 2, bytes.data(), objs};
  load_once(v2);
  return 0;
}

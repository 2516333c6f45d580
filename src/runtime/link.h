// Linking device code at run time (the driver API's cuLink*, as Numba and
// the ptxjit sample use it): PTX gathered from PTX text, fatbinaries, host
// objects nvcc wrote with -rdc and archives of them, checked for undefined
// and doubly defined symbols, written out as one image that the module
// loader (library.cpp) reads back as several PTX modules linked by name.
//
// softgpu runs PTX, so the "cubin" cuLinkComplete hands back is this image:
// a text file of the PTX modules, each after a line giving its length and
// name. A program may keep it, write it to a file and load it later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"
#include "ptx/ast.h"

namespace softgpu::runtime {

// CUjitInputType's values (cuda.h).
enum class LinkInput : int { Cubin = 0, Ptx = 1, Fatbinary = 2, Object = 3, Library = 4, Nvvm = 5 };

struct LinkedModule {
  std::string name;
  std::string text;  // PTX
};

class PtxLinker {
 public:
  // cc: the device's compute capability (e.g. 90) picks each fatbinary's PTX.
  explicit PtxLinker(uint32_t cc) : cc_(cc) {}

  // One input: cuLinkAddData's type, bytes and name. A failure leaves the
  // linker as it was and says why in error_log(); its status is the driver's:
  // InvalidPtx, NoKernelImageForDevice (no PTX this device can run),
  // invalid image (200), NotSupported (LTO-IR), InvalidValue (unknown type).
  Status add(int type, std::span<const std::byte> data, const std::string& name);
  // Checks that every function and variable the modules use is defined once
  // and writes image(); invalid image (200) naming the symbol otherwise.
  Status complete();

  std::string_view image() const { return image_; }
  const std::vector<LinkedModule>& modules() const { return modules_; }
  const std::string& error_log() const { return error_; }
  const std::string& info_log() const { return info_; }

 private:
  Status add_ptx(std::string text, const std::string& name);
  Status add_fatbin(std::span<const std::byte> data, const std::string& name);
  Status add_object(std::span<const std::byte> data, const std::string& name, bool in_library);
  Status add_library(std::span<const std::byte> data, const std::string& name);
  Status fail(Status s, std::string message);

  uint32_t cc_;
  std::vector<LinkedModule> modules_;
  std::vector<ptx::Module> parsed_;  // parallel to modules_
  std::string image_, error_, info_;
};

// The image complete() writes: the first line says what it is.
bool is_linked_image(std::string_view text);
// Its modules again; an error names what is malformed.
Result<std::vector<LinkedModule>> read_linked_image(std::string_view text);

}  // namespace softgpu::runtime

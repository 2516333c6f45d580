// TMA tensor maps for the driver API's cuTensorMapEncodeTiled and
// cuTensorMapEncodeIm2col (through
// cudart's private entry point): the executor's encoding, which
// cp.async.bulk.tensor reads (exec/tensor_map.h).
#pragma once
#include "exec/tensor_map.h"

namespace softgpu::runtime {
using exec::encode_im2col;
using exec::encode_tiled;
using exec::Im2colEncodeArgs;
using exec::replace_address;
using exec::TiledEncodeArgs;
}  // namespace softgpu::runtime

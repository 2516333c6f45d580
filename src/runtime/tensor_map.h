// TMA tensor maps for the driver API's cuTensorMapEncodeTiled (through
// cudart's private entry point): the executor's encoding, which
// cp.async.bulk.tensor reads (exec/tensor_map.h).
#pragma once
#include "exec/tensor_map.h"

namespace softgpu::runtime {
using exec::encode_tiled;
using exec::replace_address;
using exec::TiledEncodeArgs;
}  // namespace softgpu::runtime

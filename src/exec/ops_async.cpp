// Instruction semantics: async family (being written; until a handler is
// registered here its instructions fail at load with "not implemented").
#include "exec/warp.h"

namespace softgpu::exec {

void register_async_handlers(HandlerTable& t) { (void)t; }

}  // namespace softgpu::exec

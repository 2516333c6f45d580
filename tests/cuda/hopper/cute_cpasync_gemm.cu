// CUTLASS's own cp.async Hopper GEMM tutorial (examples/cute/tutorial/
// hopper/wgmma_sm90.cu from the nvidia-cutlass wheel, included as it ships,
// its main() renamed away): 128x128x64 CTA tiles of three cp.async stages,
// 128-byte swizzled, and wgmma on them, with no CTA barrier between
// mainloop iterations (a warp that finished its wgmma.wait_group copies the
// next tile into the stage its warpgroup just read). Checked against a CPU
// GEMM on +-1 inputs (cute_tutorial_check.cuh), in both of its layouts.
#define main cute_tutorial_main
#include "wgmma_sm90.cu"  // found through -I examples/cute/tutorial/hopper
#undef main

#include "cute_tutorial_check.cuh"

int main(int argc, char** argv) {
  // The epilogue is not predicated: M and N multiples of the 128 tile.
  const std::vector<TutorialShape> shapes = {{128, 128, 64, 'N', 'T'}, {256, 256, 128, 'T', 'N'},
                                             {128, 256, 256, 'N', 'T'}, {256, 128, 192, 'T', 'N'}};
  return check_tutorial("cute_cpasync_gemm", shapes, argc, argv);
}

// CUTLASS's own Hopper GEMM tutorial (examples/cute/tutorial/hopper/
// wgmma_tma_sm90.cu from the nvidia-cutlass wheel, included as it ships,
// its main() renamed away): TMA loads with 128B swizzle from tensor maps
// CuTe encodes through cuTensorMapEncodeTiled, an mbarrier pipeline of
// stages, and wgmma on the shared-memory tiles. Checked against a CPU GEMM
// on +-1 inputs (cute_tutorial_check.cuh).
#define main cute_tutorial_main
#include "wgmma_tma_sm90.cu"  // found through -I examples/cute/tutorial/hopper
#undef main

#include "cute_tutorial_check.cuh"

int main(int argc, char** argv) {
  // The tutorial launches clusters of 2 CTAs along M and does not predicate
  // its epilogue, so M must be a multiple of 256 and N of 128 (otherwise the
  // CTA past the matrix writes into C's next columns, on a GPU too: memcheck
  // reports it). K tiles of 64, fewer or more than its 3 pipeline stages
  // (more: its producer lane waits on the consumers inside a branch while
  // the rest of the warp reaches the next wgmma, which must wait for it).
  const std::vector<TutorialShape> shapes = {{256, 128, 64, 'N', 'T'}, {512, 128, 192, 'N', 'T'},
                                             {256, 256, 128, 'T', 'N'}, {256, 128, 320, 'T', 'N'},
                                             {256, 128, 512, 'N', 'T'}};
  return check_tutorial("cute_tma_gemm", shapes, argc, argv);
}

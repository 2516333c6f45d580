// cublasLtMatmul and cublasLtMatmulAlgoGetHeuristic: the problem's checks
// (shared by both), then the kernels of kernels.cu on the caller's stream.
// Column-major (CUBLASLT_ORDER_COL) and row-major (_ROW) layouts, each
// matrix its own.
// One algorithm, needing no workspace: the kernel is picked by type, layout
// and GPU (kernels.cu; kernels_sm90.cu on sm_90).
//
// Statuses: a null handle is NOT_INITIALIZED; an uninitialized descriptor,
// shapes that do not match (op(A) m x k, op(B) k x n, C and D m x n), ld
// below the rows (row-major: the columns), a null bias or aux pointer an
// epilogue needs, an aux ld or batch stride that is not the multiple the
// docs require (128 bits for the ReLU mask, 8 elements for the GELU input)
// are INVALID_VALUE; a combination softgpu does not implement (types, orders
// other than column- and row-major, an aux epilogue with a row-major D,
// vector pointer modes, unequal batch counts, C's type other than D's, ...)
// is NOT_SUPPORTED with one line on stderr naming the call and the
// combination.
#include <climits>
#include <cstdint>
#include <cstdio>

#include "handle.h"
#include "kernels.h"

namespace lt = softgpu::cublaslt;

namespace softgpu::cublaslt {
namespace {

cublasStatus_t unsupported(const char* call, const char* what) {
  std::fprintf(stderr, "softgpu cublasLt: %s: %s is not supported\n", call, what);
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

bool known_epilogue(unsigned e) {
  switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT:
    case CUBLASLT_EPILOGUE_RELU:
    case CUBLASLT_EPILOGUE_RELU_AUX:
    case CUBLASLT_EPILOGUE_BIAS:
    case CUBLASLT_EPILOGUE_RELU_BIAS:
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DRELU:
    case CUBLASLT_EPILOGUE_DRELU_BGRAD:
    case CUBLASLT_EPILOGUE_GELU:
    case CUBLASLT_EPILOGUE_GELU_AUX:
    case CUBLASLT_EPILOGUE_GELU_BIAS:
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DGELU:
    case CUBLASLT_EPILOGUE_DGELU_BGRAD:
    case CUBLASLT_EPILOGUE_BGRADA:
    case CUBLASLT_EPILOGUE_BGRADB: return true;
    default: return false;
  }
}

bool op(int32_t t, bool& transposed) {
  transposed = t != CUBLAS_OP_N;
  return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;  // real types: C is T
}

// The problem described by the descriptors, validated; fills everything of
// `out` but the data pointers and scalars.
cublasStatus_t plan(const char* call, cublasLtMatmulDesc_t pd, cublasLtMatrixLayout_t pa, cublasLtMatrixLayout_t pb,
                    cublasLtMatrixLayout_t pc, cublasLtMatrixLayout_t pdl, MatmulArgs& out) {
  const MatmulDesc* d = desc(pd);
  const Layout *a = layout(pa), *b = layout(pb), *c = layout(pc), *dl = layout(pdl);
  if (!d || !a || !b || !c || !dl) return CUBLAS_STATUS_INVALID_VALUE;
  char what[256];
  for (const Layout* l : {a, b, c, dl}) {
    if (l->order != CUBLASLT_ORDER_COL && l->order != CUBLASLT_ORDER_ROW) {
      std::snprintf(what, sizeof what, "matrix order %d (only CUBLASLT_ORDER_COL and _ROW)", l->order);
      return unsupported(call, what);
    }
    if (l->plane_offset != 0 || l->batch_mode != 0) return unsupported(call, "a planar or pointer-array layout");
    if (l->rows > uint64_t(INT_MAX) || l->cols > uint64_t(INT_MAX)) return unsupported(call, "a dimension over 2^31-1");
    const uint64_t inner = l->order == CUBLASLT_ORDER_COL ? l->rows : l->cols;  // ld covers a column / a row
    if (l->ld < 0 || l->ld < int64_t(inner > 1 ? inner : 1)) return CUBLAS_STATUS_INVALID_VALUE;
    if (l->batch_count < 1) return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!op(d->trans_a, out.ta) || !op(d->trans_b, out.tb) || d->trans_c != CUBLAS_OP_N)
    return CUBLAS_STATUS_INVALID_VALUE;
  // The shapes below are of the matrices as described; the kernel then reads
  // a row-major A (B) as the column-major storage of its transpose.
  const bool ta_desc = out.ta, tb_desc = out.tb;
  out.m = int(dl->rows);
  out.n = int(dl->cols);
  out.k = int(ta_desc ? a->rows : a->cols);
  const uint64_t am = ta_desc ? a->cols : a->rows;
  const uint64_t bk = tb_desc ? b->cols : b->rows, bn = tb_desc ? b->rows : b->cols;
  if (am != dl->rows || bk != uint64_t(out.k) || bn != dl->cols || c->rows != dl->rows || c->cols != dl->cols)
    return CUBLAS_STATUS_INVALID_VALUE;
  out.batch = dl->batch_count;
  if (a->batch_count != out.batch || b->batch_count != out.batch || c->batch_count != out.batch) {
    std::snprintf(what, sizeof what, "batch counts A %d, B %d, C %d, D %d (must be equal)", a->batch_count,
                  b->batch_count, c->batch_count, dl->batch_count);
    return unsupported(call, what);
  }
  const auto at = cudaDataType(a->type), bt = cudaDataType(b->type), ct = cudaDataType(c->type),
             dt = cudaDataType(dl->type);
  const auto comp = cublasComputeType_t(d->compute_type);
  if (ct != dt || !cublas::gemm_combo(at, bt, dt, comp, out.combo, /*fp8=*/true) ||
      cudaDataType(d->scale_type) != cublas::scale_type(out.combo)) {
    std::snprintf(what, sizeof what, "A %s, B %s, C %s, D %s with %s and scale type %s", cublas::type_name(at),
                  cublas::type_name(bt), cublas::type_name(ct), cublas::type_name(dt), cublas::compute_name(comp),
                  cublas::type_name(cudaDataType(d->scale_type)));
    return unsupported(call, what);
  }
  if (d->pointer_mode != CUBLASLT_POINTER_MODE_HOST && d->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE) {
    std::snprintf(what, sizeof what, "pointer mode %d (only HOST and DEVICE)", d->pointer_mode);
    return unsupported(call, what);
  }
  const unsigned e = d->epilogue;
  if (!known_epilogue(e)) {
    std::snprintf(what, sizeof what, "epilogue %u", e);
    return unsupported(call, what);
  }
  if ((d->bias_type != -1 && d->bias_type != int32_t(dt)) || (d->aux_type != -1 && d->aux_type != int32_t(dt))) {
    std::snprintf(what, sizeof what, "bias type %d / aux type %d other than D's (%s)", d->bias_type, d->aux_type,
                  cublas::type_name(dt));
    return unsupported(call, what);
  }
  out.lda = a->ld, out.sa = a->batch_stride;
  out.ldb = b->ld, out.sb = b->batch_stride;
  if (a->order == CUBLASLT_ORDER_ROW) out.ta = !out.ta;
  if (b->order == CUBLASLT_ORDER_ROW) out.tb = !out.tb;
  const bool c_row = c->order == CUBLASLT_ORDER_ROW, d_row = dl->order == CUBLASLT_ORDER_ROW;
  out.c_rs = c_row ? c->ld : 1, out.c_cs = c_row ? 1 : c->ld, out.sc = c->batch_stride;
  out.d_rs = d_row ? dl->ld : 1, out.d_cs = d_row ? 1 : dl->ld, out.sd = dl->batch_stride;
  out.epilogue = e;
  out.bias = const_cast<void*>(d->bias);
  out.bias_stride = d->bias_batch_stride;
  out.aux = d->aux;
  out.aux_ld = d->aux_ld;
  out.aux_stride = d->aux_batch_stride;
  const bool bias_in = (e & CUBLASLT_EPILOGUE_BIAS) && e < CUBLASLT_EPILOGUE_BGRADA;
  const bool bias_out = e == CUBLASLT_EPILOGUE_DRELU_BGRAD || e == CUBLASLT_EPILOGUE_DGELU_BGRAD ||
                        e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB;
  const bool mask = e == CUBLASLT_EPILOGUE_RELU_AUX || e == CUBLASLT_EPILOGUE_RELU_AUX_BIAS ||
                    e == CUBLASLT_EPILOGUE_DRELU || e == CUBLASLT_EPILOGUE_DRELU_BGRAD;
  const bool gelu_aux = e == CUBLASLT_EPILOGUE_GELU_AUX || e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
                        e == CUBLASLT_EPILOGUE_DGELU || e == CUBLASLT_EPILOGUE_DGELU_BGRAD;
  if ((bias_in || bias_out) && !d->bias) return CUBLAS_STATUS_INVALID_VALUE;
  // FP8 runs on the Hopper kernel alone: as cuBLASLt requires, A transposed
  // and B not (both K-major), ld and batch strides multiples of 16 bytes.
  if (cublas::is_fp8(out.combo)) {
    if (!fp8_matmul_available()) return unsupported(call, "an FP8 matmul on a GPU other than sm_90");
    if (!out.ta || out.tb) return unsupported(call, "an FP8 matmul other than TN (A transposed, B not)");
    if (e != CUBLASLT_EPILOGUE_DEFAULT) return unsupported(call, "an FP8 matmul with an epilogue other than DEFAULT");
    if (out.lda % 16 || out.ldb % 16 || (out.batch > 1 && (out.sa % 16 || out.sb % 16 || out.sa <= 0 || out.sb <= 0)))
      return unsupported(call, "an FP8 matmul with ld or batch strides not multiples of 16 bytes");
  }
  if ((mask || gelu_aux) && d_row) return unsupported(call, "an aux epilogue with a row-major D");
  if (mask || gelu_aux) {
    const int64_t mult = mask ? 128 : 8;
    if (!d->aux || d->aux_ld < out.m || d->aux_ld % mult != 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (out.batch > 1 && d->aux_batch_stride % mult != 0) return CUBLAS_STATUS_INVALID_VALUE;
  }
  // Outputs of every batch into the same vector or matrix would race.
  const bool aux_out = e == CUBLASLT_EPILOGUE_RELU_AUX || e == CUBLASLT_EPILOGUE_RELU_AUX_BIAS ||
                       e == CUBLASLT_EPILOGUE_GELU_AUX || e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  if (out.batch > 1 && ((bias_out && d->bias_batch_stride == 0) || (aux_out && d->aux_batch_stride == 0)))
    return unsupported(call, "a batched bias gradient or aux output with batch stride 0");
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace
}  // namespace softgpu::cublaslt

extern "C" {

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t op_desc,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t pref, int requested,
                                              cublasLtMatmulHeuristicResult_t results[], int* returned) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (requested < 1 || !results || !returned || !lt::preference(pref)) return CUBLAS_STATUS_INVALID_VALUE;
  *returned = 0;
  lt::MatmulArgs args{};
  if (auto st = lt::plan("cublasLtMatmulAlgoGetHeuristic", op_desc, a, b, c, d, args); st != CUBLAS_STATUS_SUCCESS)
    return st;
  results[0] = cublasLtMatmulHeuristicResult_t{};
  results[0].algo.data[0] = lt::kAlgoId;
  results[0].workspaceSize = 0;
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t op_desc, const void* alpha, const void* a,
                              cublasLtMatrixLayout_t a_desc, const void* b, cublasLtMatrixLayout_t b_desc,
                              const void* beta, const void* c, cublasLtMatrixLayout_t c_desc, void* d,
                              cublasLtMatrixLayout_t d_desc, const cublasLtMatmulAlgo_t* algo, void* workspace,
                              size_t workspace_bytes, cudaStream_t stream) {
  (void)workspace;
  (void)workspace_bytes;  // the kernels need none
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  lt::MatmulArgs args{};
  if (auto st = lt::plan("cublasLtMatmul", op_desc, a_desc, b_desc, c_desc, d_desc, args);
      st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (algo && algo->data[0] != lt::kAlgoId) {
    std::fprintf(stderr, "softgpu cublasLt: cublasLtMatmul: an algo not from cublasLtMatmulAlgoGetHeuristic is not "
                         "supported\n");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (args.m == 0 || args.n == 0) return CUBLAS_STATUS_SUCCESS;
  if (!a || !b || !c || !d) return CUBLAS_STATUS_INVALID_VALUE;
  if (softgpu::cublas::is_fp8(args.combo) && (reinterpret_cast<uintptr_t>(a) % 16 || reinterpret_cast<uintptr_t>(b) % 16))
    return lt::unsupported("cublasLtMatmul", "an FP8 matmul with A or B not 16-byte aligned");
  // In place (D == C) needs the same layout.
  if (c == d && (args.c_rs != args.d_rs || args.c_cs != args.d_cs || args.sc != args.sd))
    return CUBLAS_STATUS_INVALID_VALUE;
  const bool dev = lt::desc(op_desc)->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
  args.alpha_host = dev ? nullptr : alpha;
  args.alpha_dev = dev ? alpha : nullptr;
  args.beta_host = dev ? nullptr : beta;
  args.beta_dev = dev ? beta : nullptr;
  args.a = a;
  args.b = b;
  args.c = c;
  args.d = d;
  return lt::launch_matmul(stream, args) == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // extern "C"

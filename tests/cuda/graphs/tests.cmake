# CUDA graphs: stream capture replayed with new inputs, and an explicit diamond DAG.
softgpu_cuda_program(graph_capture SOURCES graphs/capture.cu ARCH -arch=sm_80)
cuda_test(graph_capture graph_capture STDOUT_REGEX "PASS graph_capture")
softgpu_cuda_program(graph_diamond SOURCES graphs/diamond.cu ARCH -arch=sm_80)
cuda_test(graph_diamond graph_diamond STDOUT_REGEX "PASS graph_diamond")
# cudaDeviceSynchronize during capture, by the capture interaction modes
# (global, thread-local, relaxed; this thread's capture and another's).
softgpu_cuda_program(capture_sync SOURCES graphs/capture_sync.cu ARCH -arch=sm_80)
cuda_test(capture_sync capture_sync STDOUT_REGEX "PASS capture_sync")

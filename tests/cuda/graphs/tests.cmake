# CUDA graphs: stream capture replayed with new inputs, and an explicit diamond DAG.
softgpu_cuda_program(graph_capture SOURCES graphs/capture.cu ARCH -arch=sm_80)
cuda_test(graph_capture graph_capture STDOUT_REGEX "PASS graph_capture")
softgpu_cuda_program(graph_diamond SOURCES graphs/diamond.cu ARCH -arch=sm_80)
cuda_test(graph_diamond graph_diamond STDOUT_REGEX "PASS graph_diamond")

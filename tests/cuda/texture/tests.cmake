# Texture and surface objects. textures: sampling (point/linear, clamp/wrap,
# normalized coordinates, float and uchar4) against the Programming Guide's
# formulas, tex1Dfetch on linear memory, surface read/write. tex_probe_point:
# bit-exact against output recorded on an H200 (point sampling, border
# colours, missing channels, normalized-float conversions, linear weights).
# tex_probe.expected is the full H200 output, linear filtering included, that
# softgpu does not match yet (see the texture commit messages).
softgpu_cuda_program(textures SOURCES texture/textures.cu ARCH -arch=sm_80)
cuda_test(textures textures STDOUT_REGEX "PASS textures")
softgpu_cuda_program(tex_probe SOURCES texture/tex_probe.cu ARCH -arch=sm_80)
cuda_test(tex_probe_point tex_probe ARGS point EXPECTED_STDOUT ${CMAKE_CURRENT_LIST_DIR}/tex_probe_point.expected)

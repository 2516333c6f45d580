# Texture and surface objects. textures: sampling (point/linear, clamp/wrap,
# normalized coordinates, float and uchar4) against the Programming Guide's
# formulas, tex1Dfetch on linear memory, surface read/write. tex_probe_point:
# bit-exact against output recorded on an H200 (point sampling, border
# colours, missing channels, normalized-float conversions, linear weights).
# tex_probe: the full H200 output (tex_probe.expected), linear filtering
# included, compared line by line in order; the few lines softgpu does not
# reproduce yet are listed, with the reason, in tex_probe.known_diffs.
softgpu_cuda_program(textures SOURCES texture/textures.cu ARCH -arch=sm_80)
cuda_test(textures textures STDOUT_REGEX "PASS textures")
softgpu_cuda_program(tex_probe SOURCES texture/tex_probe.cu ARCH -arch=sm_80)
cuda_test(tex_probe_point tex_probe ARGS point EXPECTED_STDOUT ${CMAKE_CURRENT_LIST_DIR}/tex_probe_point.expected)
add_test(NAME cuda.tex_probe
         COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/tex_probe
                 -DEXPECTED=${CMAKE_CURRENT_LIST_DIR}/tex_probe.expected
                 -DKNOWN=${CMAKE_CURRENT_LIST_DIR}/tex_probe.known_diffs
                 -P ${CMAKE_CURRENT_LIST_DIR}/compare_probe.cmake)
set_tests_properties(cuda.tex_probe PROPERTIES LABELS cuda TIMEOUT 600)

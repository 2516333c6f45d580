# CUDA source lines in fault reports (nvcc -lineinfo and -G: .file/.loc in
# the PTX). The expected lines come from the "LINE:name" markers in the
# source, counted here, so the test follows edits of lineinfo.cu.
softgpu_cuda_program(lineinfo SOURCES lineinfo/lineinfo.cu FLAGS -lineinfo)
softgpu_cuda_program(lineinfo_G SOURCES lineinfo/lineinfo.cu FLAGS -G)

set(_lineinfo_src ${_src}/lineinfo/lineinfo.cu)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_lineinfo_src})
file(READ ${_lineinfo_src} _lineinfo_text)
# The 1-based line holding "// LINE:<name>" (end of the comment) -> out.
function(_lineinfo_line name out)
  string(FIND "${_lineinfo_text}" "// LINE:${name}\n" pos)
  if(pos LESS 0)
    message(FATAL_ERROR "lineinfo.cu has no 'LINE:${name}' marker")
  endif()
  string(SUBSTRING "${_lineinfo_text}" 0 ${pos} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()
_lineinfo_line(oob_write _l_write)
_lineinfo_line(poke _l_poke)
_lineinfo_line(poke_call _l_call)

# -G: no inlined_at (nvcc writes plain .loc lines there), generic stores.
foreach(p lineinfo lineinfo_G)
  set(_site " inlined at lineinfo\\.cu:${_l_call}")
  if(p STREQUAL "lineinfo_G")
    set(_site "")
  endif()
  cuda_test(${p}_oob_write ${p} ARGS oob_write STDOUT_REGEX "PASS lineinfo oob_write"
            STDERR_REGEX "oob_write_kernel[^\n]* block \\(1,0,0\\) thread \\(7,0,0\\): [^\n]* in 'st\\.[^']*' at PTX line [0-9]+ \\(lineinfo\\.cu:${_l_write}\\)")
  cuda_test(${p}_oob_inlined ${p} ARGS oob_inlined STDOUT_REGEX "PASS lineinfo oob_inlined"
            STDERR_REGEX "oob_inlined_kernel[^\n]* block \\(1,0,0\\) thread \\(7,0,0\\): [^\n]* in 'st\\.[^']*' at PTX line [0-9]+ \\(lineinfo\\.cu:${_l_poke}${_site}\\)")
endforeach()

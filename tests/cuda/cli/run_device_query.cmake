# Runs device_query under `softgpu run --gpu KEY` and checks every field it
# prints against the same key in configs/gpus/KEY.toml or the config it
# names as its base (read here, not by softgpu).
# -DSOFTGPU=... -DPROG=... -DCONFIG=path/to/KEY.toml
cmake_minimum_required(VERSION 3.25)
get_filename_component(key "${CONFIG}" NAME_WE)
execute_process(COMMAND "${SOFTGPU}" run --gpu ${key} -- "${PROG}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit code: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}--------------")
file(READ "${CONFIG}" toml)
# A config with `base = "KEY"` inherits what it does not set: its own lines
# first (the first match wins), then its base's (at most 8 deep: softgpu
# itself rejects a cycle).
get_filename_component(_dir "${CONFIG}" DIRECTORY)
foreach(_depth RANGE 8)
  if(NOT toml MATCHES "(^|\n)base *= *\"([^\"]+)\"")
    break()
  endif()
  file(READ "${_dir}/${CMAKE_MATCH_2}.toml" _base_toml)
  string(REGEX REPLACE "(^|\n)base *= *\"[^\"]+\"" "\\1" toml "${toml}")
  string(APPEND toml "\n${_base_toml}")
endforeach()
set(failures "")
if(NOT rc EQUAL 0)
  list(APPEND failures "exit code ${rc}, expected 0")
endif()
foreach(field name compute_capability sm_count global_memory_bytes warp_size max_threads_per_block max_block_dim
              max_grid_dim max_threads_per_sm registers_per_block shared_memory_per_block shared_memory_per_sm
              memory_bus_width_bits clock_khz)
  if(NOT toml MATCHES "\n${field} *= *([^\n#]*[^\n# ])")
    list(APPEND failures "${CONFIG} has no ${field}")
    continue()
  endif()
  string(REGEX REPLACE "^\"(.*)\"$" "\\1" want "${CMAKE_MATCH_1}")
  if(field STREQUAL "name")
    string(APPEND want " (softgpu)")  # how softgpu's cudaGetDeviceProperties names the device
  endif()
  if(NOT out MATCHES "\n${field}: ([^\n]*)\n")
    list(APPEND failures "device_query printed no ${field}")
  elseif(NOT "${CMAKE_MATCH_1}" STREQUAL "${want}")
    list(APPEND failures "${field}: device_query printed '${CMAKE_MATCH_1}', ${key}.toml says '${want}'")
  endif()
endforeach()
foreach(re "devices: 1\n" "versions: driver 13[0-9][0-9][0-9] runtime 13[0-9][0-9][0-9]\n" "PASS device_query\n")
  if(NOT out MATCHES "${re}")
    list(APPEND failures "stdout does not match '${re}'")
  endif()
endforeach()
if(NOT err STREQUAL "")
  list(APPEND failures "stderr is not empty")
endif()
if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  message(FATAL_ERROR "FAILED:\n  ${failures}")
endif()

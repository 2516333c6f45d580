# Instruction-semantics unit tests (owned by the semantics engineer);
# included from tests/unit/exec/CMakeLists.txt.
add_executable(exec_ops_tests
  ${CMAKE_CURRENT_LIST_DIR}/ops_int_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_float_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_warp_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_texture_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_tensor_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mma_subbyte_sparse_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_async_test.cpp)
target_include_directories(exec_ops_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The recorded H200 texture probe (not __FILE__, which compiler caches may make relative).
target_compile_definitions(exec_ops_tests PRIVATE SOFTGPU_TEXTURE_DATA="${PROJECT_SOURCE_DIR}/tests/cuda/texture/")
target_link_libraries(exec_ops_tests PRIVATE softgpu_exec GTest::gtest_main)
gtest_discover_tests(exec_ops_tests DISCOVERY_TIMEOUT 60)

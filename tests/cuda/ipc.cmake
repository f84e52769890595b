# The cuda_ipc transport (cuda/ipc): unit tests with a fake driver, the loader without a driver
# and with the driver stub, and GPU tests (label gpu, skipped without a device).
if(NOT TARGET gpurun_cuda_ipc)
  return()
endif()

gpurun_unit_test(cuda_ipc_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/ipc_cache_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/ipc_driver_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/ipc_eligibility_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/ipc_fake_driver.cc
    ${CMAKE_CURRENT_LIST_DIR}/ipc_fd_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/ipc_handle_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/ipc_transport_test.cc
  LIBS gpurun_cuda_ipc)

# The stub of the toolkit (cuInit returns CUDA_ERROR_STUB_LIBRARY) under the driver's name, in a
# folder of the build tree that only this test puts on LD_LIBRARY_PATH.
find_file(GPURUN_CUDA_STUB libcuda.so PATHS ${CUDAToolkit_LIBRARY_DIR}/stubs
          ${CUDAToolkit_LIBRARY_ROOT}/lib64/stubs NO_DEFAULT_PATH)
if(GPURUN_CUDA_STUB)
  set(_stub_dir ${PROJECT_BINARY_DIR}/tests/cuda_stub)
  file(MAKE_DIRECTORY ${_stub_dir})
  file(CREATE_LINK ${GPURUN_CUDA_STUB} ${_stub_dir}/libcuda.so.1 SYMBOLIC)
  add_executable(cuda_ipc_stub_test ${CMAKE_CURRENT_LIST_DIR}/ipc_stub_test.cc)
  target_link_libraries(cuda_ipc_stub_test PRIVATE gpurun_cuda_ipc GTest::gtest GTest::gtest_main)
  set_target_properties(cuda_ipc_stub_test PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/bin)
  add_test(NAME cuda_ipc.driver_stub COMMAND cuda_ipc_stub_test)
  set_tests_properties(cuda_ipc.driver_stub PROPERTIES
    ENVIRONMENT "LD_LIBRARY_PATH=${_stub_dir}" LABELS "unit")
endif()

# A driver older than the toolkit (CUDA 12.4): the loader must look its entry points up at its
# version. The stand-in library is built as libcuda.so.1 in a folder of its own.
add_library(gpurun_fake_cuda12_driver SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cuda12_driver.c)
target_include_directories(gpurun_fake_cuda12_driver PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_target_properties(gpurun_fake_cuda12_driver PROPERTIES
  C_VISIBILITY_PRESET default OUTPUT_NAME cuda SOVERSION 1 LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/cuda12_driver)
add_executable(cuda_ipc_old_driver_test ${CMAKE_CURRENT_LIST_DIR}/ipc_old_driver_test.cc)
target_link_libraries(cuda_ipc_old_driver_test PRIVATE gpurun_cuda_ipc GTest::gtest GTest::gtest_main)
add_dependencies(cuda_ipc_old_driver_test gpurun_fake_cuda12_driver)
set_target_properties(cuda_ipc_old_driver_test PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/bin)
add_test(NAME cuda_ipc.older_driver COMMAND cuda_ipc_old_driver_test)
set_tests_properties(cuda_ipc.older_driver PROPERTIES
  ENVIRONMENT "LD_LIBRARY_PATH=${PROJECT_BINARY_DIR}/tests/cuda12_driver" LABELS "unit")

# On a GPU: two processes through the real driver (D-D, D-H, VMM, pools, churn, one GPU).
add_executable(cuda_ipc_gpu_test ${CMAKE_CURRENT_LIST_DIR}/ipc_gpu_test.cc)
target_link_libraries(cuda_ipc_gpu_test PRIVATE gpurun_cuda_ipc CUDA::cudart_static
                      GTest::gtest GTest::gtest_main)
set_target_properties(cuda_ipc_gpu_test PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/bin)
gtest_discover_tests(cuda_ipc_gpu_test
  PROPERTIES LABELS "gpu" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" TIMEOUT 300
  DISCOVERY_TIMEOUT 60)

# The MPI programs of mpi_tests/cudaipc (label gpu).
include(${PROJECT_SOURCE_DIR}/mpi_tests/cudaipc/cudaipc.cmake)

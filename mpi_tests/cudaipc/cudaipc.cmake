# MPI programs with device buffers (label gpu): device memory of every allocator through MPI
# between ranks of one host sharing its GPUs, and the IPC cache under churn. They link the CUDA
# runtime and print "[  SKIPPED ]" without a device, which CTest counts as skipped; that is why
# they are registered here (included from tests/cuda/ipc.cmake) and not by a testlist.
set(_cudaipc_dir ${CMAKE_CURRENT_LIST_DIR})
foreach(spec "pt2pt 2" "pt2pt 4" "allocators 2" "churn 2")
  string(REPLACE " " ";" spec "${spec}")
  list(GET spec 0 name)
  list(GET spec 1 np)
  set(target mpit_cudaipc_${name})
  if(NOT TARGET ${target})
    add_executable(${target} ${_cudaipc_dir}/${name}.c)
    target_link_libraries(${target} PRIVATE mtest CUDA::cudart_static)
    set_target_properties(${target} PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/mpi_tests/bin)
  endif()
  set(test mpi.cudaipc.${name}.np${np})
  add_test(NAME ${test} COMMAND gpurun -np ${np} --timeout 300 $<TARGET_FILE:${target}>)
  set_tests_properties(${test} PROPERTIES
    PASS_REGULAR_EXPRESSION "No Errors"
    FAIL_REGULAR_EXPRESSION "${GPURUN_MPI_TEST_FAIL}"
    SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
    LABELS "mpi;gpu"
    TIMEOUT 330)
endforeach()

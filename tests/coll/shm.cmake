# Unit tests of the shared-memory collectives (coll/shm): ranks as threads over one segment.
# Included by tests/coll/CMakeLists.txt.
gpurun_unit_test(coll_shm_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_movement_test.cc
  LIBS gpurun_coll_shm)
# The reductions need core::Op's definitions (runtime/core/op.cc).
if(EXISTS ${PROJECT_SOURCE_DIR}/runtime/core/op.cc)
  gpurun_unit_test(coll_shm_reduction_test
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_reduction_test.cc
    LIBS gpurun_coll_shm)
endif()

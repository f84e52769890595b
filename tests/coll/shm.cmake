# Unit tests of the shared-memory collectives (coll/shm): ranks as threads over one segment.
# Included by tests/coll/CMakeLists.txt.
gpurun_unit_test(coll_shm_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_movement_test.cc
  LIBS gpurun_coll_shm)
gpurun_unit_test(coll_shm_reduction_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_reduction_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/shm_reduce_scatter_test.cc
  LIBS gpurun_coll_shm)

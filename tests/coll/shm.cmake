# Unit tests of the shared-memory collectives (coll/shm): ranks as threads over one segment.
# Included by tests/coll/CMakeLists.txt.
gpurun_unit_test(coll_shm_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_movement_test.cc
  LIBS gpurun_coll_shm)
gpurun_unit_test(coll_shm_cma_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_cma_test.cc
  LIBS gpurun_coll_shm)
gpurun_unit_test(coll_shm_reduction_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_reduction_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/shm_reduce_scatter_test.cc
  LIBS gpurun_coll_shm)

# The built-in selection table names "shm" (one-host rules), and a table that names an
# unregistered algorithm does not load: coll_test, which loads it, carries the shared-memory
# algorithms too (their objects, so that every registration runs).
target_sources(coll_test PRIVATE $<TARGET_OBJECTS:gpurun_coll_shm>)
target_link_libraries(coll_test PRIVATE gpurun_transport gpurun_progress)
gpurun_unit_test(coll_shm_mismatch_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_mismatch_test.cc
  LIBS gpurun_coll_shm)
gpurun_unit_test(coll_shm_blocking_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm_blocking_test.cc
  LIBS gpurun_coll_shm)

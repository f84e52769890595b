# The algorithms beyond the first one per collective (extra_algorithms_test): a million
# elements, the bcast chain's segment knob, commutative-only algorithms refused a
# non-commutative op by the selection. Included by tests/coll/CMakeLists.txt. The selection
# loads the built-in table, which names the shared-memory algorithms: their objects come too.
gpurun_unit_test(coll_extra_algorithms_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/extra_algorithms_test.cc
  LIBS "$<LINK_LIBRARY:WHOLE_ARCHIVE,gpurun_coll>")
target_sources(coll_extra_algorithms_test PRIVATE $<TARGET_OBJECTS:gpurun_coll_shm>)
target_link_libraries(coll_extra_algorithms_test PRIVATE gpurun_transport gpurun_progress)

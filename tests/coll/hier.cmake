# Unit tests of the hierarchical collectives (coll/algo/hier*.cc): ranks as pmls in the test
# process, spread over pretend hosts. Included by tests/coll/CMakeLists.txt.
gpurun_unit_test(coll_hier_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/hier_test.cc
  LIBS "$<LINK_LIBRARY:WHOLE_ARCHIVE,gpurun_coll>")

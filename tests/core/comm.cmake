# Groups, context ids and info objects (the communicator work).
gpurun_unit_test(core_comm_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/group_test.cc ${CMAKE_CURRENT_LIST_DIR}/context_ids_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/info_test.cc
  LIBS gpurun_core)

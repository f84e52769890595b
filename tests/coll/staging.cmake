# Collectives on device memory without a GPU: host staging, the device_ring allreduce and the
# schedules on the device over a test double of the accelerator whose "device memory" is
# unreadable outside its own calls, the table's memory condition.
gpurun_unit_test(coll_device_test
  SOURCES staging_test.cc device_selection_test.cc device_schedule_test.cc
  LIBS "$<LINK_LIBRARY:WHOLE_ARCHIVE,gpurun_coll>")
# The built-in table names "shm": the shared-memory algorithms' objects come along (every
# registration runs), as for coll_test.
target_sources(coll_device_test PRIVATE $<TARGET_OBJECTS:gpurun_coll_shm>)
target_link_libraries(coll_device_test PRIVATE gpurun_transport gpurun_progress)

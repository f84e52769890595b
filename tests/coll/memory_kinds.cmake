# What a communicator's info asserts about memory kinds (api/memory_kinds.cc, compiled in):
# which lists make a process assert device memory only, and the knob for communicators whose
# info does not say.
gpurun_unit_test(coll_memory_kinds_test
  SOURCES memory_kinds_test.cc ${PROJECT_SOURCE_DIR}/api/memory_kinds.cc
  LIBS gpurun_core gpurun_cuda)

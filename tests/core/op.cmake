# Reduction ops (runtime/core/op*).
gpurun_unit_test(core_op_test
  SOURCES op_test.cc op_pair_test.cc op_layout_test.cc
  LIBS gpurun_core)

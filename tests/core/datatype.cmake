gpurun_unit_test(core_datatype_test
  SOURCES datatype_test.cc datatype_layout_test.cc datatype_external_test.cc
          datatype_test_util.cc
  LIBS gpurun_core)

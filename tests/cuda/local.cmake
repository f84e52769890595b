# MPI_Reduce_local and MPI_Pack/MPI_Unpack on device memory, without a GPU: the API's logic
# (api/device_local.cc, compiled in) over the fenced test double of the accelerator.
gpurun_unit_test(cuda_device_local_test
  SOURCES device_local_test.cc ${PROJECT_SOURCE_DIR}/api/device_local.cc
  LIBS gpurun_core gpurun_accel)

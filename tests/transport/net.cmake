# Unit tests of the network transports (ucx, ofi): one conformance suite (net_conformance.*)
# instantiated by each transport's test file, built when the transport is.
set(_net_sources "")
if(GPURUN_WITH_UCX_FOUND)
  list(APPEND _net_sources ucx_transport_test.cc)
endif()
if(GPURUN_WITH_OFI_FOUND)
  list(APPEND _net_sources ofi_transport_test.cc)
endif()
if(_net_sources)
  gpurun_unit_test(net_transport_test
    SOURCES net_conformance.cc ${_net_sources}
    LIBS gpurun_transport
    LABELS net)
endif()

# The MPI tests over the network transports (they run programs that mpi_tests builds).
include(${PROJECT_SOURCE_DIR}/mpi_tests/net/net.cmake)

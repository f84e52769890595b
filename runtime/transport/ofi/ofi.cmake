# The ofi transport, built into gpurun_transport when libfabric is found (GPURUN_WITH_OFI).
if(GPURUN_WITH_OFI_FOUND)
  target_sources(gpurun_transport PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/ofi_bulk.cc
    ${CMAKE_CURRENT_LIST_DIR}/ofi_info.cc
    ${CMAKE_CURRENT_LIST_DIR}/ofi_transport.cc
    ${CMAKE_CURRENT_LIST_DIR}/params.cc)
  target_link_libraries(gpurun_transport PUBLIC PkgConfig::GPURUN_WITH_OFI_PC)
endif()

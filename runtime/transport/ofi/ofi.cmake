# The ofi transport, built into gpurun_transport when libfabric is found (GPURUN_WITH_OFI).
# Only libfabric's headers are used at build time: the library is loaded at run time when a
# job needs it (ofi_api.h says why), so libmpi does not link it.
if(GPURUN_WITH_OFI_FOUND)
  target_sources(gpurun_transport PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/ofi_api.cc
    ${CMAKE_CURRENT_LIST_DIR}/ofi_bulk.cc
    ${CMAKE_CURRENT_LIST_DIR}/ofi_info.cc
    ${CMAKE_CURRENT_LIST_DIR}/ofi_transport.cc
    ${CMAKE_CURRENT_LIST_DIR}/params.cc)
  target_include_directories(gpurun_transport PUBLIC
    $<TARGET_PROPERTY:PkgConfig::GPURUN_WITH_OFI_PC,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(gpurun_transport PUBLIC ${CMAKE_DL_LIBS})
endif()

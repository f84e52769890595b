# The ucx transport, built into gpurun_transport when UCX is found (GPURUN_WITH_UCX).
if(GPURUN_WITH_UCX_FOUND)
  target_sources(gpurun_transport PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/params.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_bulk.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_transport.cc)
  target_link_libraries(gpurun_transport PUBLIC PkgConfig::GPURUN_WITH_UCX_PC)
endif()

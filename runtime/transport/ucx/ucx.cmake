# The ucx transport, built into gpurun_transport when UCX is found (GPURUN_WITH_UCX). Only
# UCX's headers are used at build time: the library is loaded at run time when a job needs it
# (ucx_api.h says why), so libmpi does not link it.
if(GPURUN_WITH_UCX_FOUND)
  target_sources(gpurun_transport PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/params.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_api.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_bulk.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_small.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_teardown.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_transport.cc)
  target_include_directories(gpurun_transport PUBLIC
    $<TARGET_PROPERTY:PkgConfig::GPURUN_WITH_UCX_PC,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(gpurun_transport PUBLIC ${CMAKE_DL_LIBS})
endif()

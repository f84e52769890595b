# gpurun_module(NAME SOURCES ... DEPS ...)
# One static library per folder of the layering in DESIGN.md. Each module may link only the
# modules below it; tests/layering checks the includes.
function(gpurun_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${M_SOURCES})
  target_link_libraries(${name} PUBLIC ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS})
  set_property(GLOBAL APPEND PROPERTY GPURUN_MODULES ${name})
endfunction()

# Building the suite for one MPI. Used by bench/CMakeLists.txt both inside gpurun's build
# (against gpurun's `mpi` target) and standalone (CMAKE_C_COMPILER is another MPI's mpicc).
include(CheckCSourceCompiles)

set(BENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/..)

# Every program, by source path under bench/ (without .c).
set(BENCH_PROGRAM_SOURCES
  pt2pt/osu_latency pt2pt/osu_bw pt2pt/osu_bibw pt2pt/osu_mbw_mr pt2pt/osu_multi_lat
  pt2pt/osu_latency_mt pt2pt/part_latency
  coll/osu_barrier coll/osu_bcast coll/osu_reduce coll/osu_allreduce coll/osu_allgather
  coll/osu_allgatherv coll/osu_alltoall coll/osu_alltoallv coll/osu_gather coll/osu_gatherv
  coll/osu_scatter coll/osu_scatterv
  coll/osu_reduce_scatter
  coll/osu_iallreduce coll/osu_ibcast coll/osu_ialltoall
  init/osu_init init/osu_hello
  io/io_write_all io/io_read_all io/io_write io/io_read
  rma/osu_put_latency rma/osu_get_latency rma/osu_acc_latency rma/osu_put_bw rma/osu_get_bw)
# Programs that need only MPI_Init/Finalize/Comm_rank/Comm_size/Barrier/Wtime.
set(BENCH_MINIMAL_PROGRAMS osu_init osu_hello osu_barrier)

set(BENCH_CORE_SOURCES options.c pattern.c cuda_rt.c run.c output.c ranks.c)
set(BENCH_FULL_SOURCES coll.c coll_data.c pt2pt.c rma.c stream.c)
list(TRANSFORM BENCH_CORE_SOURCES PREPEND ${BENCH_DIR}/common/)
list(TRANSFORM BENCH_FULL_SOURCES PREPEND ${BENCH_DIR}/common/)

# bench_program_names(<out>): the names of all programs.
function(bench_program_names out)
  set(names)
  foreach(src ${BENCH_PROGRAM_SOURCES})
    get_filename_component(n ${src} NAME)
    list(APPEND names ${n})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# bench_read_gpurun_programs(<out>): the names listed in bench/gpurun_programs.txt.
function(bench_read_gpurun_programs out)
  file(STRINGS ${BENCH_DIR}/gpurun_programs.txt lines REGEX "^[a-z_0-9]+$")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${BENCH_DIR}/gpurun_programs.txt)
  set(${out} ${lines} PARENT_SCOPE)
endfunction()

# bench_detect_minimal(<out> [INCLUDES dirs]): TRUE when the MPI's header lacks what the full
# suite needs (MPI_Reduce, nonblocking point-to-point, MPI_Comm_split_type). Compile only.
function(bench_detect_minimal out)
  cmake_parse_arguments(D "" "" "INCLUDES" ${ARGN})
  set(CMAKE_REQUIRED_INCLUDES ${D_INCLUDES})
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  set(CMAKE_REQUIRED_QUIET ON)
  # The header changes with the tree: probe again at every configure.
  unset(BENCH_MPI_FULL_${out} CACHE)
  # An undeclared function is only a warning in C: make it the failure it means here.
  set(CMAKE_REQUIRED_FLAGS "-Werror=implicit-function-declaration")
  check_c_source_compiles([[
#include <mpi.h>
int probe(void) {
  double a = 0, b = 0; MPI_Request r; MPI_Comm c; int flag;
  MPI_Reduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Iallreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Isend(&a, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);
  MPI_Waitall(1, &r, MPI_STATUSES_IGNORE);
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  return MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
}
int main(void) { return 0; }
]] BENCH_MPI_FULL_${out})
  if(BENCH_MPI_FULL_${out})
    set(${out} FALSE PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

# bench_add_suite(PREFIX p PROGRAMS names... OUTPUT_DIR dir [LINK libs...] [MINIMAL])
# Builds the named programs into OUTPUT_DIR. In MINIMAL mode only BENCH_MINIMAL_PROGRAMS can
# be built; others are reported and left out.
function(bench_add_suite)
  cmake_parse_arguments(S "MINIMAL" "PREFIX;OUTPUT_DIR" "PROGRAMS;LINK" ${ARGN})
  find_package(Threads REQUIRED)
  set(core ${S_PREFIX}_bench_core)
  add_library(${core} STATIC ${BENCH_CORE_SOURCES})
  target_include_directories(${core} PUBLIC ${BENCH_DIR}/common)
  target_link_libraries(${core} PUBLIC ${S_LINK} ${CMAKE_DL_LIBS})
  target_compile_options(${core} PUBLIC -Wall -Wextra)
  if(S_MINIMAL)
    target_compile_definitions(${core} PUBLIC BENCH_MPI_MINIMAL=1)
  else()
    set(full ${S_PREFIX}_bench_full)
    add_library(${full} STATIC ${BENCH_FULL_SOURCES})
    target_link_libraries(${full} PUBLIC ${core} Threads::Threads)
  endif()
  foreach(src ${BENCH_PROGRAM_SOURCES})
    get_filename_component(name ${src} NAME)
    if(NOT name IN_LIST S_PROGRAMS)
      continue()
    endif()
    set(lib ${full})
    if(name IN_LIST BENCH_MINIMAL_PROGRAMS)
      set(lib ${core})
    elseif(S_MINIMAL)
      message(STATUS "bench (${S_PREFIX}): ${name} left out: this MPI lacks the calls it needs")
      continue()
    endif()
    add_executable(${S_PREFIX}_${name} ${BENCH_DIR}/${src}.c)
    target_link_libraries(${S_PREFIX}_${name} PRIVATE ${lib})
    set_target_properties(${S_PREFIX}_${name} PROPERTIES OUTPUT_NAME ${name}
                          RUNTIME_OUTPUT_DIRECTORY ${S_OUTPUT_DIR})
  endforeach()
endfunction()

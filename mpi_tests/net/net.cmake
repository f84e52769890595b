# The pt2pt and comm MPI tests over the network transports on one host: each runs with
# GPURUN_TRANSPORTS naming only that transport, so that ranks of one host talk through it
# (shm unused). The programs are those of mpi_tests/<dir>/ (built there); the tests are named
# mpi.net.<setup>.<dir>.<name>.np<N> and labelled mpi and net.
#
# A representative subset (about 1 s each over ucx, 1.5 s over ofi, whose libfabric takes
# 0.3 s to start here): cancel is left out (it relies on shm's ring filling up), and the 2 GiB
# test runs on ucx only.
set(GPURUN_NET_MPI_TESTS
  pt2pt/order:4 pt2pt/ssend:3 pt2pt/truncate:2 pt2pt/probe:4 pt2pt/mprobe:4
  pt2pt/persistent:3 pt2pt/bsend:2 pt2pt/completion:2 pt2pt/status:2 pt2pt/sendrecv:3
  pt2pt/errors:2 pt2pt/cforms:2 pt2pt/typelife:3 pt2pt/comms:2 pt2pt/orphan_finalize:2
  pt2pt/bsend_finalize:2 pt2pt/orphan_late:2 pt2pt/unreceived_finalize:2
  comm/dup_isolation:3 comm/split:4 comm/create_group:4 comm/idup:3 comm/barrier:3
  comm/many:2 comm/threads:3)
# setup name | GPURUN_TRANSPORTS and other environment | extra tests
set(_net_setups "ucx" "ofi" "ucx_tcp")
set(_net_env_ucx "GPURUN_TRANSPORTS=ucx")
set(_net_env_ofi "GPURUN_TRANSPORTS=ofi")
# UCX's network path (its shared-memory transports are what it picks on one host otherwise).
set(_net_env_ucx_tcp "GPURUN_TRANSPORTS=ucx;UCX_TLS=tcp,self")
set(_net_list_ucx ${GPURUN_NET_MPI_TESTS} pt2pt/large:2)
set(_net_list_ofi ${GPURUN_NET_MPI_TESTS})
set(_net_list_ucx_tcp pt2pt/order:4 pt2pt/ssend:3 pt2pt/probe:4 pt2pt/sendrecv:3
  pt2pt/typelife:3 comm/barrier:3)
set(_net_built "")
if(GPURUN_WITH_UCX_FOUND)
  list(APPEND _net_built ucx ucx_tcp)
endif()
if(GPURUN_WITH_OFI_FOUND)
  list(APPEND _net_built ofi)
endif()

set(_net_fail "${GPURUN_MPI_TEST_FAIL}")
foreach(setup ${_net_built})
  foreach(entry ${_net_list_${setup}})
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 path)
    list(GET parts 1 nprocs)
    string(REPLACE "/" "_" target "mpit_${path}")
    string(REPLACE "/" "." name "mpi.net.${setup}.${path}.np${nprocs}")
    add_test(NAME ${name} COMMAND gpurun -np ${nprocs} --timeout 120 $<TARGET_FILE:${target}>)
    set(labels "mpi;net")
    if(path STREQUAL "pt2pt/large")
      list(APPEND labels large)
    endif()
    set_tests_properties(${name} PROPERTIES
      PASS_REGULAR_EXPRESSION "No Errors"
      FAIL_REGULAR_EXPRESSION "${_net_fail}"
      ENVIRONMENT "${_net_env_${setup}}"
      LABELS "${labels}"
      TIMEOUT 150)
  endforeach()
endforeach()

# A job whose ranks cannot reach each other must fail with the reason, never hang: `expect` is
# the line that says why.
function(gpurun_unreachable_test name program env expect)
  add_test(NAME mpi.net.${name}.np2 COMMAND gpurun -np 2 --timeout 60 $<TARGET_FILE:${program}>)
  set_tests_properties(mpi.net.${name}.np2 PROPERTIES
    ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "${expect}"
    FAIL_REGULAR_EXPRESSION "No Errors|gpurun: internal error|ran past its --timeout"
    LABELS "mpi;net" TIMEOUT 90)
endfunction()
# A rank that no transport reaches: the send fails with the reason, naming the rank.
gpurun_unreachable_test(unreachable mpit_pt2pt_order "GPURUN_TRANSPORTS=self"
  "no transport reaches rank 1: shm is not used \\(GPURUN_TRANSPORTS=self\\)")
# The same where the first call is a collective: receives from such a rank fail too (before,
# the members waited for each other's messages in the shared segment's set-up for ever).
gpurun_unreachable_test(unreachable_coll mpit_coll_bcast "GPURUN_TRANSPORTS=self"
  "MPI_Bcast: rank [01] is lost: no transport reaches rank [01]: shm is not used")
if(GPURUN_WITH_OFI_FOUND)
  # A network transport that cannot start is skipped, and the reason reaches the user.
  gpurun_unreachable_test(no_provider mpit_pt2pt_order
    "GPURUN_TRANSPORTS=ofi;GPURUN_OFI_PROVIDER=nonesuch"
    "no transport reaches rank [01]: .*ofi: no provider named nonesuch")
endif()

#!/usr/bin/env bash
# One check of gpurun's binaries under Slurm's PMIx server (run by CTest with the slurm
# fixture, which exports SLURM_CONF).
#   srun_mpi          srun --mpi=pmix -n 2 mpi_rank hello: an MPI program, ranks 0 and 1 of 2
#   srun_pmix_client  srun --mpi=pmix -n 2 pmix_rank hello: the PMIx fence exchanges every key
#   gpurun_in_step    gpurun -np 2 inside an srun --mpi=pmix step: gpurun ignores the step's
#                     PMIx and Slurm variables and serves its own ranks
#   srun_without_pmix srun --mpi=none -n 2 mpi_rank hello: MPI_Init fails in each rank and says
#                     how to start the job, instead of two ranks that each run alone
#   gpurun_in_one_node
#                     salloc -n 2 gpurun mpi_rank hello: an allocation of this host alone gives
#                     -np its 2 tasks, and gpurun -np 3 in an allocation of 1 runs there too
#                     (as on any one host)
#   srun_one_cma      srun --mpi=pmix -n 2 mpi_rank hello: without gpurun's copy probe the two
#                     ranks of the host move large messages the same way (CMA or the fragment
#                     pipeline: the first rank's timing), as their transport logs say
# On the two-node Slurm of the test hosts (scripts/slurm.sh start-hosts), srun running in the
# first host's network namespace (the 6th argument, which ends in 1; the second host's name ends
# in 2):
#   two_nodes         srun --mpi=pmix -N 2 -n 4 mpi_where: an MPI program's ranks 0,1 on the
#                     first host and 2,3 on the second
#   two_nodes_pmix    srun --mpi=pmix -N 2 -n 4 pmix_rank hello: the fence across nodes
#                     exchanges every key
#   gpurun_in_allocation
#                     salloc -N 2 --ntasks-per-node=2 gpurun mpi_where: gpurun takes the
#                     allocation's nodes and tasks (4 ranks, 2 a node, both nodes' daemons
#                     started by srun); -np 5 does not fit its 4 slots
#   gpurun_in_batch   sbatch -N 2 --ntasks-per-node=2 --wrap "gpurun mpi_where": the batch
#                     script's node runs its ranks under gpurun itself, the other through srun
set -euo pipefail
case=$1 mpi_rank=$2 pmix_rank=$3 gpurun=$4 mpi_where=${5:-} netns=${6:-}
guard="timeout 60"
on_host() { nsenter --net="/run/netns/$netns" "$@"; }

expect() {  # expect "<sorted expected output>" command...
  local want=$1 got
  shift
  got=$("$@" | sort)
  if [ "$got" != "$want" ]; then
    echo "FAIL: $*" >&2
    echo "expected:" >&2; echo "$want" >&2
    echo "got:" >&2; echo "$got" >&2
    exit 1
  fi
  echo "ok: $*"
}

case $case in
  srun_mpi)
    expect $'rank 0 of 2\nrank 1 of 2' $guard srun --mpi=pmix -n 2 "$mpi_rank" hello ;;
  srun_pmix_client)
    expect $'rank 0 of 2: peers ok\nrank 1 of 2: peers ok' \
      $guard srun --mpi=pmix -n 2 "$pmix_rank" hello ;;
  gpurun_in_one_node)
    expect $'rank 0 of 2\nrank 1 of 2' $guard salloc -Q -n 2 "$gpurun" "$mpi_rank" hello
    expect $'rank 0 of 3\nrank 1 of 3\nrank 2 of 3' \
      $guard salloc -Q -n 1 "$gpurun" -np 3 "$mpi_rank" hello ;;
  gpurun_in_step)
    expect $'[0] rank 0 of 2\n[1] rank 1 of 2' \
      $guard srun --mpi=pmix -n 1 "$gpurun" --tag-output -np 2 "$mpi_rank" hello ;;
  two_nodes)
    expect "rank 0 of 4 netns ${netns%1}1
rank 1 of 4 netns ${netns%1}1
rank 2 of 4 netns ${netns%1}2
rank 3 of 4 netns ${netns%1}2" on_host $guard srun --mpi=pmix -N 2 -n 4 "$mpi_where" ;;
  gpurun_in_allocation)
    alloc=(on_host $guard salloc -Q -N 2 --ntasks-per-node=2)
    expect "rank 0 of 4 netns ${netns%1}1
rank 1 of 4 netns ${netns%1}1
rank 2 of 4 netns ${netns%1}2
rank 3 of 4 netns ${netns%1}2" "${alloc[@]}" "$gpurun" "$mpi_where"
    if out=$("${alloc[@]}" "$gpurun" -np 5 "$mpi_where" 2>&1) ||
        ! grep -q "5 ranks do not fit the 4 slots" <<<"$out"; then
      echo "FAIL: -np 5 in an allocation of 4 tasks:" >&2; echo "$out" >&2; exit 1
    fi
    echo "ok: -np 5 refused" ;;
  gpurun_in_batch)
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    on_host $guard sbatch -Q --wait -N 2 --ntasks-per-node=2 -o "$out" \
      --wrap "$gpurun --display-map $mpi_where"
    expect "gpurun: rank 0 on $(hostname): $mpi_where
gpurun: rank 1 on $(hostname): $mpi_where
gpurun: rank 2 on ${netns%1}2: $mpi_where
gpurun: rank 3 on ${netns%1}2: $mpi_where
rank 0 of 4 netns ${netns%1}1
rank 1 of 4 netns ${netns%1}1
rank 2 of 4 netns ${netns%1}2
rank 3 of 4 netns ${netns%1}2" grep -E "^(rank|gpurun: rank)" "$out" ;;
  two_nodes_pmix)
    expect "$(for r in 0 1 2 3; do echo "rank $r of 4: peers ok"; done)" \
      on_host $guard srun --mpi=pmix -N 2 -n 4 "$pmix_rank" hello ;;
  srun_without_pmix)
    if out=$($guard srun --mpi=none -n 2 "$mpi_rank" hello 2>&1); then
      echo "FAIL: srun --mpi=none ran the job:" >&2; echo "$out" >&2; exit 1
    fi
    if ! grep -q "started by srun as one of 2 tasks without PMIx" <<<"$out" ||
        grep -q "rank 0 of 1" <<<"$out"; then
      echo "FAIL: srun --mpi=none:" >&2; echo "$out" >&2; exit 1
    fi
    echo "ok: srun --mpi=none refused" ;;
  srun_one_cma)
    log=$(GPURUN_LOG_LEVEL=warn,transport:info $guard srun --mpi=pmix -n 2 "$mpi_rank" hello 2>&1)
    # Each rank's last word on it: its own timing, or the first rank's that it took.
    ways=$(for r in 0 1; do
      grep -E "^\[[^]]*:$r\] info transport: shm: large messages by" <<<"$log" | tail -n 1 |
        sed -E 's/.*large messages by (CMA single copy|fragment pipeline).*/\1/'
    done)
    if [ "$(wc -l <<<"$ways")" != 2 ] || [ "$(sort -u <<<"$ways" | wc -l)" != 1 ]; then
      echo "FAIL: the ranks chose apart:" >&2; echo "$log" >&2; exit 1
    fi
    echo "ok: both ranks: $(head -n 1 <<<"$ways")" ;;
  *) echo "unknown case $case" >&2; exit 2 ;;
esac

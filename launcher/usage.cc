// gpurun --help.
#include <string>

#include "launcher/cli.h"

namespace gpurun::launcher {

std::string usage_text() {
  return R"(usage: gpurun [options] [--] program [args...]
       gpurun [options] program [args...] : -np N [-x VAR] [--wdir DIR] [-H LIST] program ...
       gpurun [options] --app FILE
       gpurun --explain [-np N] [placement options] [program [args...]]

Starts N copies (ranks) of an MPI program on this host, or on the hosts -H or --hostfile name,
and serves them as their PMIx server.

options:
  -np N, -n N          number of ranks (default 1)
  -x VAR[=value]       set VAR in the ranks' environment (its current value without '=';
                       left out with a warning when VAR is not set here)
  --wdir DIR           start the ranks in DIR (default: gpurun's working directory)
  --tag-output         prefix every output line with [rank]
  --timestamp-output   prefix every output line with the time it reached gpurun
  --merge-stderr-to-stdout
                       send the ranks' stderr to gpurun's stdout
  --output-filename DIR[:nocopy,nojobid]
                       also write each rank's output to DIR/1/rank.N/stdout and stderr (N
                       zero-filled; files on gpurun's host, made before the ranks start);
                       :nocopy writes the files only, :nojobid leaves out the "1" level
  --stdin RANK|all|none
                       which rank reads gpurun's stdin (default 0); all: every rank reads all
                       of it, at the pace of the slowest; the others read an empty stdin
  --timeout T          end the job after T (seconds, or 500ms, 2m); exit code 124 (without it,
                       MPIEXEC_TIMEOUT in the environment, as MPICH's mpiexec reads it)
  --get-stack-traces   at --timeout, each rank first writes its stack (where it waits) to
                       stderr, and gets a second for it
  --report-bindings    print each rank's CPUs (and GPU, NIC) on stderr as the ranks start
  --display-map        print each rank's host and program on stderr before they start
  --display-allocation print the hosts the job may use and their slots on stderr
  --bind-to core|none  without GPUs, bind each rank to one core (default: core; with more
                       ranks than cores, consecutive ranks share one: rank r on core
                       r * cores / N); with GPUs, ranks are bound to the CPUs of their
                       GPU's NUMA node, or to one core of it with --bind-to core;
                       --bind-to numa|socket|l3cache: to the NUMA node (package, L3
                       cache) of those cores; --bind-to hwthread: to one hardware thread of
                       the core, ranks sharing a core taking its threads in turn
  --cpus-per-rank N    where ranks are bound to cores, bind each to N consecutive ones, for
                       ranks that run threads (an error when they do not fit); without it,
                       the ranks' OMP_NUM_THREADS asks the same, as far as the cores allow
  --map-by gpu|core    gpu: give each rank a GPU, round robin over the GPUs in PCI bus order,
                       consecutive ranks sharing one when there are more ranks than GPUs (the
                       default when the host has GPUs); core: no GPU placement
  --gpus-per-rank N    give each rank N GPUs (an error when the host has too few)
  --map-by numa        spread the ranks of a host over its NUMA nodes, each bound to its node;
                       socket (package), l3cache: over its packages or L3 caches alike;
                       ppr:N:numa|socket|package|l3cache: N ranks on each such domain, the
                       domains filled in turn (a host runs N times as many ranks as this one
                       has domains)
  --use-hwthread-cpus  each hardware thread counts as a core (one rank each, --cpus-per-rank N
                       of them); --map-by hwthread: so too, without GPU placement

several programs in one job (MPMD):
  A : B                after ':' comes another program with its own -np N (each program of
                       such a job needs one), -x VAR, --wdir DIR and hosts (-H LIST or
                       --hostfile FILE, which join the job's); -np, -x and --wdir before the
                       first program are the first's, the other options go there only, for
                       the whole job. The programs' ranks follow one another in
                       MPI_COMM_WORLD, and MPI_APPNUM tells each rank its program (0, 1, ...)
  --app FILE           the programs one a line ("-np N [-x VAR] [--wdir DIR] program args";
                       '...' or "..." keep blanks in a word; # starts a comment line);
                       --configfile FILE is the same

across hosts:
  -H, --host LIST      hosts and their slots: host[:slots],... (a host without slots has 1)
  --hostfile FILE      one host a line: "host slots=N" (or "host:N"), with Open MPI's
                       "max_slots=M" a cap even with --oversubscribe; # comments, blank lines
  -np N                default with hosts: one rank per slot (per --npernode)
  --map-by slot|node   slot (default): fill each host's slots in turn; node: deal the ranks
                       round robin over the hosts
  --rank-by slot|node  number the ranks host by host (slot) or one per host in turn (node),
                       whichever way they were mapped (default: as mapped); socket
                       (package), numa, l3cache: host by host, each host's ranks dealt over
                       those domains, one core each unless --bind-to says otherwise
  --npernode N         N ranks on each host (instead of its slots); without hosts, on this one
  --rankfile FILE, -rf FILE
                       each rank's host and cores, a line each: "rank N=HOST slot=SLOTS";
                       HOST a name or +nK (the K-th host of -H or --hostfile, from 0), SLOTS
                       logical cores (1-2,5), socket:cores (1:0-3), ';' apart, or *
  --oversubscribe      allow more ranks than slots, and on one host more than 32 per core
                       (else an error)
  (Slurm)              inside salloc or sbatch, without -H: the allocation's nodes and tasks
                       a node, each daemon started by srun (GPURUN_LAUNCHER_SLURM=false: not)
  --prefix DIR         gpurun is DIR/bin/gpurun on the other hosts (default: its path here)
  --launch-agent CMD   how to start gpurun's daemon on a remote host (default: ssh); {host} in
                       CMD is replaced by the host's name, else the name is appended:
                       --launch-agent 'ip netns exec {host}'. localhost, 127.0.0.1 and this
                       host's own names and addresses run their ranks without an agent
  --explain            print the placement, the GPU/NIC topology matrix and the path chosen
                       between every pair of ranks for host and device buffers, then exit
                       without running the program (-np defaults to one rank per GPU)
  --info params        list every knob: value, default, source and doc
  --version            print the version
  --help               print this help
  --                   end of options

the peers' spellings:
  MPICH's              -bind-to core:N (--cpus-per-rank N), -env NAME VALUE (-x NAME=VALUE),
                       -genv NAME VALUE (every program),
                       -envlist/-genvlist A,B (their values here), -envall/-genvall (what
                       gpurun does anyway), -l/-prepend-rank (--tag-output),
                       -hosts (-H), -f/-hostfile/-machinefile (--hostfile), -ppn (--npernode),
                       -wdir (--wdir), -configfile (--app), -launcher/-bootstrap ssh|rsh|
                       slurm|fork and -launcher-exec/-bootstrap-exec PROG (--launch-agent;
                       fork: every rank on this host), -outfile-pattern P and
                       -errfile-pattern P (each rank's stdout or stderr into the file P
                       names: %r rank, %h host, %p host index, %g 0, %t start time, %% %;
                       ranks naming one file share it; the directories must exist)
  Open MPI's           -c (-np), --wd (--wdir), -N and --map-by ppr:N:node (--npernode N),
                       --cpus-per-proc N and the --map-by modifiers PE=N (--cpus-per-rank N)
                       and oversubscribe, --allow-run-as-root (accepted: gpurun runs as any
                       user); --mca is refused (gpurun's knobs are GPURUN_* variables:
                       --info params)

Each rank placed on a GPU is told its GPU (PCI bus id) and nearest NIC through PMIx
(gpurun.gpus, gpurun.nic); CUDA_VISIBLE_DEVICES is left as it is, so that every GPU stays
visible for CUDA IPC. GPURUN_TOPO_FILE=topology.xml places the ranks as on that machine.

Output is forwarded line by line; stdin goes to rank 0 (--stdin). When a rank fails (non-zero exit, a
signal, MPI_Abort) the other ranks are ended and gpurun exits with the failing rank's code
(128+signal for a signal). SIGINT, SIGTERM, SIGHUP and SIGQUIT end the job; SIGUSR1 and
SIGUSR2 reach every rank, Ctrl-Z (SIGTSTP) stops the ranks and gpurun, and fg or bg (SIGCONT)
continues them. Knobs are environment variables; see gpurun --info params.
The ranks' LD_LIBRARY_PATH ends with gpurun's library directory, so that programs built
against MPICH (libmpich.so.12, libmpi.so.12) load gpurun's library rather than MPICH's.
)";
}

}  // namespace gpurun::launcher

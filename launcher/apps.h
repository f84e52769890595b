// The programs of a job. `gpurun -np 2 ./ocean : -np 3 ./atmos` starts one job of two programs
// (MPI's "app contexts", MPMD): ranks 0-1 run ./ocean (MPI_APPNUM 0), ranks 2-4 run ./atmos
// (MPI_APPNUM 1), all in one MPI_COMM_WORLD. `--app FILE` gives the same with one program a line.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpurun::launcher {

struct App {
  int np = 0;                     // its ranks; 0 only for the sole program of a job over hosts
                                  // without -np (one rank per slot)
  std::string program;            // resolved path to execute
  std::vector<std::string> argv;  // argv[0] as the user wrote it, then its arguments
  // Its -x exports: VAR=value to set in its ranks' environment.
  std::vector<std::pair<std::string, std::string>> exports;
  std::string wdir;  // its ranks' working directory; empty: gpurun's
  // Its own -H lists (after a ':' or on its --app line): the hosts its ranks go to, among the
  // job's or besides them (mapping.h); empty: the job's hosts.
  std::vector<std::string> hosts;
  std::string hostfile;  // its own --hostfile (instead of -H)
};

// Whether a program names hosts of its own (-H or --hostfile).
bool any_program_hosts(const std::vector<App>& apps);

// The program of `rank` (an index into apps), in a job of `size` ranks.
int app_of_rank(const std::vector<App>& apps, int rank);

// How many ranks each program has, in a job of `size` ranks (the sole program without -np has
// them all).
std::vector<int> app_sizes(const std::vector<App>& apps, int size);

// The lines of an --app file, each split into words (words.h); blank lines and lines starting with
// '#' are skipped. Throws UsageError when the file cannot be read or names no program.
std::vector<std::pair<std::string, std::vector<std::string>>> read_app_file(
    const std::string& path);

}  // namespace gpurun::launcher

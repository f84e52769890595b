// Naming one process across time, for records that outlive it (a job directory's owner, a
// published service name): pids are reused, so a record keeps the pid, the process's start time
// and the scope in which the pid means something; a later reader tells whether that process
// still runs.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace gpurun {

// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat), or
// nothing when there is no such process. With the pid it names one process.
std::optional<unsigned long long> process_start_time(pid_t pid);

// Where pids mean something: this boot of this machine (a directory on a shared file system
// holds other hosts' records) and this pid namespace (containers that share /tmp but not their
// pids), as "BOOT-ID/pid:[INODE]"; "unknown" when either cannot be read.
std::string pid_scope();

// Whether the process that was `pid`, started at `started`, has ended (its pid is free or names
// a later process).
bool process_gone(pid_t pid, unsigned long long started);

}  // namespace gpurun

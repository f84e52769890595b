// What gpurun can tell about a program before it starts it: the shared libraries it asks for,
// and whether one of them is another MPI's that gpurun's library cannot take the place of.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpurun::launcher {

// The DT_NEEDED entries of the ELF file at `path` (64-bit, little-endian), in order; nullopt
// when it is no such file (a script, a static program, an unreadable one).
std::optional<std::vector<std::string>> needed_libraries(const std::string& path);

// When `needed` names Open MPI's library (libmpi.so.40, libmpi.so.20, or one of its language
// bindings), that library; else "". Programs built against MPICH (libmpi.so.12,
// libmpich.so.12) load gpurun's library instead and need nothing.
std::string foreign_mpi_library(const std::vector<std::string>& needed);

// Throws UsageError when the program at `path` is built against Open MPI: started by gpurun,
// each of its ranks would run alone as a job of its own.
void check_program_mpi(const std::string& path);

}  // namespace gpurun::launcher

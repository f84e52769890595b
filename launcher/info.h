// `gpurun --info`, --version and --help, and the library's list of knobs.
#pragma once

#include <string>
#include <vector>

#include "runtime/topo/path_policy.h"

namespace gpurun::launcher {

// Prints the text for `gpurun --info <topic>`; returns the exit code (2 for an unknown topic).
int print_info(const std::string& topic);
// Warns once per GPURUN_* variable of the environment that names no knob of the launcher or
// of the library. Loads the library only when the launcher does not know a name.
void warn_unknown_knobs();
std::string version_text();

// The transports this build of gpurun has: libmpi's answer to gpurun_info("transports"), or,
// when the library cannot be loaded or does not answer, the build configuration's
// (gpurun/build_config.h). `source` says which, for --explain.
std::vector<topo::TransportInfo> build_transports(std::string& source);

}  // namespace gpurun::launcher

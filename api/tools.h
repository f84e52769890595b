// The tool information interface (MPI_T), shared by its parts: api/tools.cc (init, finalize,
// performance-variable sessions, events), api/tool_cvars.cc (control variables, which are
// gpurun's knobs, and categories) and api/tool_pvars.cc (performance variables).
//
// MPI_T may be used before MPI_Init and after MPI_Finalize, from any thread, and returns its
// codes instead of running error handlers (the standard's rules).
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>

#include "api/call.h"

namespace gpurun::api {

// MPI_SUCCESS if MPI_T is initialized; else MPI_T_ERR_NOT_INITIALIZED.
int tool_initialized();

// Writes `text` by MPI_T's convention for returning strings: at most *len - 1 characters and
// a null into `buf` (nothing when `buf` is null or *len is 0), and *len set to the length of
// the whole text plus one. Nothing when `len` is null.
void tool_string(std::string_view text, char* buf, int* len);

// The module of a knob, its category: the word after GPURUN_, in lower case
// ("GPURUN_PML_EAGER_LIMIT": "pml").
std::string tool_module_of(std::string_view knob_name);

// The last MPI_T_finalize ends the control-variable handles (api/tool_cvars.cc) and the
// performance-variable sessions with their handles (api/tool_pvars.cc).
void tool_cvars_end();
void tool_pvars_end();

// The performance variables (api/tool_pvars.cc), for the categories: how many, and the
// category of each (a knob module's name, e.g. "pml").
int tool_pvar_count();
std::string_view tool_pvar_category(int index);

}  // namespace gpurun::api

// Each MPI_T function as PMPI_T_x with its weak MPI_T_x alias.
#define GPURUN_TOOL_FN(name, params, body)       \
  extern "C" int P##name params { return body; } \
  GPURUN_MPI_ALIAS(name)

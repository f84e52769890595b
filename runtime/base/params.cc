#include "runtime/base/params.h"

namespace gpurun::params {
namespace {
param::Param<std::string> g_param_file(
    "GPURUN_PARAM_FILE", "",
    "File of 'NAME = value' lines giving knob values; the environment overrides it.");
param::Param<param::List> g_log_level(
    "GPURUN_LOG_LEVEL", param::List{{"warn"}, false},
    "Log threshold: a level (none, error, warn, info, debug, trace), then subsys:level pairs.");
param::Param<param::List> g_log_subsys(
    "GPURUN_LOG_SUBSYS", param::List{},
    "Subsystems whose info and debug messages show (init, topo, transport, pml, coll, cuda, "
    "launcher, io); empty means all, ^ excludes.");
param::Param<bool> g_backtrace(
    "GPURUN_BACKTRACE", true,
    "A rank that dies of SIGSEGV, SIGBUS, SIGFPE or SIGILL writes the signal, the address and its "
    "stack to stderr first (where the program has no handler of its own).");
}  // namespace

param::Param<std::string>& param_file() { return g_param_file; }
const param::Param<param::List>& log_level() { return g_log_level; }
const param::Param<param::List>& log_subsys() { return g_log_subsys; }
const param::Param<bool>& backtrace() { return g_backtrace; }

}  // namespace gpurun::params

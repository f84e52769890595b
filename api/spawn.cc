#include "api/spawn.h"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/connect.h"
#include "api/info.h"
#include "api/state.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"

extern char** environ;

namespace gpurun::api {
namespace {

constexpr char kParentPortVariable[] = "GPURUN_PARENT_PORT";

param::Param<std::string> g_launcher(
    "GPURUN_SPAWN_LAUNCHER", "",
    "The gpurun that MPI_Comm_spawn runs to start the children; empty: the one installed "
    "beside this library (bin/gpurun next to lib/).");

param::Param<std::string> g_parent_port(
    kParentPortVariable, "",
    "Set by MPI_Comm_spawn for the processes it starts, not by users: the port whose spawning "
    "group their MPI_Init connects to (MPI_Comm_get_parent).");

MPI_Comm g_parent = MPI_COMM_NULL;
std::vector<pid_t> g_spawned;  // jobs this process started, not yet waited for

// The gpurun beside this library: <prefix>/lib/libmpi.so.12 -> <prefix>/bin/gpurun.
Result<std::string> launcher_path() {
  std::string path = g_launcher.get();
  if (path.empty()) {
    Dl_info where{};
    if (dladdr(reinterpret_cast<void*>(&wait_spawned_jobs), &where) == 0 ||
        where.dli_fname == nullptr)
      return Status(ErrorCode::kNotFound, "cannot tell where this library lies");
    std::string library = where.dli_fname;
    std::string dir = library.substr(0, library.rfind('/') + 1);
    path = dir + "../bin/gpurun";
  }
  if (access(path.c_str(), X_OK) != 0)
    return Status(ErrorCode::kNotFound, "no gpurun to start the children at " + path + " (set " +
                                            std::string(g_launcher.name()) + ")");
  return path;
}

// One program the root was asked to start.
struct Command {
  const char* command = nullptr;
  char** argv = nullptr;
  int maxprocs = 0;
  MPI_Info info = MPI_INFO_NULL;
};

// What the root was asked to start: one job of these programs.
struct Request {
  std::vector<Command> commands;
  std::string refused;  // why the root cannot start it at all, when it cannot

  int processes() const {
    int n = 0;
    for (const Command& c : commands) n += std::max(c.maxprocs, 0);
    return n;
  }
};

// The root's checks of the arguments only it passes. `which`: how a command is named in errors.
Status check_command(const Command& c, const std::string& which) {
  if (c.command == nullptr || c.command[0] == '\0')
    return Status(ErrorCode::kInvalidArgument, "argument " + which + " is empty at the root");
  if (c.maxprocs < 1)
    return Status(ErrorCode::kInvalidArgument,
                  "argument maxprocs " + std::to_string(c.maxprocs) + " is not positive");
  if (c.info != MPI_INFO_NULL && find_info(c.info) == nullptr)
    return Status(ErrorCode::kInvalidArgument, "argument info is not an info object");
  for (char** a = c.argv; a != nullptr && *a != nullptr; ++a)
    if (std::strcmp(*a, ":") == 0)
      return Status(ErrorCode::kInvalidArgument,
                    "an argument of " + which + " is ':', which gpurun's command line takes as the "
                    "start of another program");
  return ok_status();
}

Status check_request(const Request& r) {
  if (!r.refused.empty()) return Status(ErrorCode::kInvalidArgument, r.refused);
  for (std::size_t k = 0; k < r.commands.size(); ++k)
    GPURUN_TRY(check_command(r.commands[k], r.commands.size() == 1
                                                ? std::string("command")
                                                : "array_of_commands[" + std::to_string(k) + "]"));
  return ok_status();
}

// gpurun's command line for the children: each command with -np maxprocs, its info "wdir" as
// --wdir and "path" before PATH (-x PATH), ':' between commands.
std::vector<std::string> launcher_args(const std::string& gpurun, const Request& r) {
  std::vector<std::string> args = {gpurun};
  std::string path = param::external_env("PATH").value_or("/usr/bin:/bin");
  for (const Command& c : r.commands) {
    if (args.size() > 1) args.emplace_back(":");
    args.insert(args.end(), {"-np", std::to_string(c.maxprocs)});
    const core::Info* info = c.info == MPI_INFO_NULL ? nullptr : find_info(c.info);
    if (const std::string* wdir = info ? info->get("wdir") : nullptr)
      args.insert(args.end(), {"--wdir", *wdir});
    if (const std::string* dirs = info ? info->get("path") : nullptr)
      args.insert(args.end(), {"-x", "PATH=" + *dirs + ":" + path});
    args.emplace_back(c.command);
    for (char** a = c.argv; a != nullptr && *a != nullptr; ++a) args.emplace_back(*a);
  }
  return args;
}

// Starts gpurun for the children, with the port in the environment.
Result<pid_t> start_job(const Request& r, const std::string& port) {
  GPURUN_ASSIGN_OR_RETURN(std::string gpurun, launcher_path());
  std::vector<std::string> args = launcher_args(gpurun, r);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string_view(*e).starts_with(std::string(kParentPortVariable) + "="))
      env.emplace_back(*e);
  env.push_back(std::string(kParentPortVariable) + "=" + port);
  // Parents on several hosts reach the children over the network: the children's network
  // transport then uses this host's network devices, not only the loopback (which it keeps to
  // in a job on one host).
  if (state().bootstrap->job().num_nodes > 1 && !param::external_env("UCX_NET_DEVICES"))
    env.emplace_back("UCX_NET_DEVICES=all");
  std::vector<char*> argv_c, env_c;
  for (std::string& a : args) argv_c.push_back(a.data());
  for (std::string& e : env) env_c.push_back(e.data());
  argv_c.push_back(nullptr);
  env_c.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, gpurun.c_str(), nullptr, nullptr, argv_c.data(), env_c.data());
  if (rc != 0)
    return Status(ErrorCode::kIo, "cannot start " + gpurun + ": " + std::strerror(rc), rc);
  g_spawned.push_back(pid);
  GPURUN_LOG(info, init, "spawned %d processes of %zu programs, the first %s (gpurun pid %d)",
             r.processes(), r.commands.size(), r.commands.front().command, static_cast<int>(pid));
  return pid;
}

// While the spawning group waits: whether the children's job still runs.
Status still_running(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return ok_status();
  std::erase(g_spawned, pid);
  std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                      : "signal " + std::to_string(WTERMSIG(status));
  return Status(ErrorCode::kAborted, "the children's job ended (gpurun: " + how +
                                         ") before its processes connected; its output says why");
}

Result<std::unique_ptr<bootstrap::Channel>> open_for_children(
    const Request& r, std::unique_ptr<bootstrap::Port>* port) {
  GPURUN_TRY(check_request(r));
  GPURUN_ASSIGN_OR_RETURN(*port, bootstrap::Port::open("127.0.0.1"));
  GPURUN_ASSIGN_OR_RETURN(pid_t pid, start_job(r, (*port)->name()));
  return (*port)->accept([] { state().pml->progress(); }, [pid] { return still_running(pid); });
}

int spawn(const Call& call, const Request& r, int root, MPI_Comm comm, MPI_Comm* intercomm,
          int* errcodes) {
  if (int rc = check_group_args(call, comm, root, intercomm); rc != MPI_SUCCESS) return rc;
  CommEntry* entry = find_comm(comm);
  std::unique_ptr<bootstrap::Port> port;  // the root's, closed on return
  int rc = connect_groups(
      call, comm, root, ConnectSide::kAccept, [&] { return open_for_children(r, &port); },
      intercomm, MPI_ERR_SPAWN);
  int n = rc == MPI_SUCCESS ? find_comm(*intercomm)->comm->size()
                            : (entry->comm->rank() == root ? r.processes() : 0);
  if (errcodes != MPI_ERRCODES_IGNORE)
    for (int i = 0; i < n; ++i) errcodes[i] = rc;
  return rc;
}

}  // namespace

int connect_to_parent(const Call& call) {
  std::string name = g_parent_port.get();
  if (name.empty()) return MPI_SUCCESS;
  unsetenv(kParentPortVariable);  // not passed on to what this process starts
  const BigLock lock;
  int rc = connect_groups(
      call, MPI_COMM_WORLD, 0, ConnectSide::kConnect,
      [&name] { return connect_to_port(name.c_str()); }, &g_parent, MPI_ERR_SPAWN);
  if (rc == MPI_SUCCESS) find_comm(g_parent)->name = "MPI_COMM_PARENT";
  return rc;
}

void wait_spawned_jobs() {
  for (pid_t pid : g_spawned) {
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (state().pml) state().pml->progress();
      usleep(1000);
    }
  }
  g_spawned.clear();
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info,
                               int root, MPI_Comm comm, MPI_Comm* intercomm,
                               int array_of_errcodes[]) {
  GPURUN_API_ENTER("MPI_Comm_spawn");
  return spawn(call, Request{{Command{command, argv, maxprocs, info}}, {}}, root, comm, intercomm,
               array_of_errcodes);
}

extern "C" int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[],
                                        char** array_of_argv[], const int array_of_maxprocs[],
                                        const MPI_Info array_of_info[], int root, MPI_Comm comm,
                                        MPI_Comm* intercomm, int array_of_errcodes[]) {
  GPURUN_API_ENTER("MPI_Comm_spawn_multiple");
  // Only the root reads its arguments: one job of `count` programs (gpurun A : B).
  Request r;
  GPURUN_CHECK_COMM(entry, comm);
  if (entry->comm->rank() != root) {
    // Nothing here is read.
  } else if (count < 1) {
    r.refused = "argument count " + std::to_string(count) + " is not positive";
  } else if (array_of_commands == nullptr || array_of_maxprocs == nullptr) {
    r.refused = "argument array_of_commands or array_of_maxprocs is a null pointer";
  } else {
    for (int k = 0; k < count; ++k)
      r.commands.push_back(Command{array_of_commands[k],
                                   array_of_argv ? array_of_argv[k] : nullptr,
                                   array_of_maxprocs[k],
                                   array_of_info ? array_of_info[k] : MPI_INFO_NULL});
  }
  return spawn(call, r, root, comm, intercomm, array_of_errcodes);
}

extern "C" int PMPI_Comm_get_parent(MPI_Comm* parent) {
  GPURUN_API_ENTER("MPI_Comm_get_parent");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, parent);
  // MPI_COMM_NULL once the program freed or disconnected it.
  *parent = g_parent != MPI_COMM_NULL && find_comm(g_parent) != nullptr ? g_parent : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_spawn)
GPURUN_MPI_ALIAS(MPI_Comm_spawn_multiple)
GPURUN_MPI_ALIAS(MPI_Comm_get_parent)

#include "api/spawn.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
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

const std::string* info_value(const Command& c, const char* key) {
  const core::Info* info = c.info == MPI_INFO_NULL ? nullptr : find_info(c.info);
  return info != nullptr ? info->get(key) : nullptr;
}

// The command's hosts: info "host" (-H syntax), else Open MPI's "add-host".
const std::string* hosts_of(const Command& c) {
  const std::string* hosts = info_value(c, "host");
  return hosts != nullptr ? hosts : info_value(c, "add-host");
}
// Its hostfile: info "hostfile", else Open MPI's "add-hostfile".
const std::string* hostfile_of(const Command& c) {
  const std::string* file = info_value(c, "hostfile");
  return file != nullptr ? file : info_value(c, "add-hostfile");
}

// Whether some command names hosts of its own.
bool names_hosts(const Request& r) {
  for (const Command& c : r.commands)
    if (hosts_of(c) != nullptr || hostfile_of(c) != nullptr) return true;
  return false;
}

// One word of a line of gpurun's --app file: as it is without blanks or quotes, else within the
// quote it does not hold; nullopt when it cannot be written (both quotes, or a line break).
std::optional<std::string> app_word(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\r\n'\"") == std::string::npos) return word;
  if (word.find('\n') != std::string::npos) return std::nullopt;
  if (word.find('\'') == std::string::npos) return "'" + word + "'";
  if (word.find('"') == std::string::npos) return "\"" + word + "\"";
  return std::nullopt;
}

// The words of one command's --app line: -np maxprocs, info "wdir" as --wdir, "path" before
// PATH (-x PATH), "host" as -H, "hostfile" as --hostfile (Open MPI's "add-host" and
// "add-hostfile" alike), then the command and its arguments.
std::vector<std::string> app_line(const Command& c) {
  std::vector<std::string> words = {"-np", std::to_string(c.maxprocs)};
  if (const std::string* wdir = info_value(c, "wdir")) words.insert(words.end(), {"--wdir", *wdir});
  if (const std::string* dirs = info_value(c, "path"))
    words.insert(words.end(), {"-x", "PATH=" + *dirs + ":" +
                                         param::external_env("PATH").value_or("/usr/bin:/bin")});
  if (const std::string* hosts = hosts_of(c)) words.insert(words.end(), {"-H", *hosts});
  if (const std::string* file = hostfile_of(c)) words.insert(words.end(), {"--hostfile", *file});
  words.insert(words.end(), {"--", c.command});
  for (char** a = c.argv; a != nullptr && *a != nullptr; ++a) words.emplace_back(*a);
  return words;
}

// The root's checks of the arguments only it passes. `which`: how a command is named in errors.
Status check_command(const Command& c, const std::string& which) {
  if (c.command == nullptr || c.command[0] == '\0')
    return Status(ErrorCode::kInvalidArgument, "argument " + which + " is empty at the root");
  if (c.maxprocs < 1)
    return Status(ErrorCode::kInvalidArgument,
                  "argument maxprocs " + std::to_string(c.maxprocs) + " is not positive");
  if (c.info != MPI_INFO_NULL && find_info(c.info) == nullptr)
    return Status(ErrorCode::kInvalidArgument, "argument info is not an info object");
  for (const std::string& word : app_line(c)) {
    if (app_word(word)) continue;
    std::string why = "'";
    why.append(word, 0, 80).append("' of ").append(which);
    return Status(ErrorCode::kInvalidArgument,
                  why + " holds both quote marks or a line break, which gpurun cannot pass on");
  }
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

// The children's programs as gpurun's --app file (launcher/apps.h), a line each.
std::string app_file(const Request& r) {
  std::string text;
  for (const Command& c : r.commands) {
    for (const std::string& word : app_line(c)) text += *app_word(word) + " ";
    text.back() = '\n';
  }
  return text;
}

// A pipe whose read end (close-on-exec) holds `text`, all written before the reader starts.
Result<int> pipe_holding(const std::string& text) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Status(ErrorCode::kIo, std::string("pipe2: ") + std::strerror(errno), errno);
  if (text.size() > 65536) fcntl(fds[1], F_SETPIPE_SZ, static_cast<int>(text.size()));
  ssize_t n = fcntl(fds[1], F_GETPIPE_SZ) >= static_cast<int>(text.size())
                  ? write(fds[1], text.data(), text.size())
                  : -1;
  close(fds[1]);
  if (n != static_cast<ssize_t>(text.size())) {
    close(fds[0]);
    return Status(ErrorCode::kInvalidArgument, "the commands and their arguments take " +
                                                   std::to_string(text.size()) +
                                                   " bytes, more than a pipe to gpurun holds");
  }
  return fds[0];
}

// Starts gpurun for the children, with their programs as its --app file on descriptor 3 and the
// port in the environment.
Result<pid_t> start_job(const Request& r, const std::string& port) {
  GPURUN_ASSIGN_OR_RETURN(std::string gpurun, launcher_path());
  GPURUN_ASSIGN_OR_RETURN(int apps, pipe_holding(app_file(r)));
  std::vector<std::string> args = {gpurun, "--app", "/dev/fd/3"};
  // Hosts named by info get the ranks asked for, beyond their slots if need be.
  if (names_hosts(r)) args.insert(args.begin() + 1, "--oversubscribe");
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string_view(*e).starts_with(std::string(kParentPortVariable) + "="))
      env.emplace_back(*e);
  env.push_back(std::string(kParentPortVariable) + "=" + port);
  // Parents or children on several hosts meet over the network: a network transport the
  // children start with (GPURUN_TRANSPORTS without shm) then uses this host's network devices
  // too, not only the loopback (which it keeps to in a job on one host).
  if ((state().bootstrap->job().num_nodes > 1 || names_hosts(r)) &&
      !param::external_env("UCX_NET_DEVICES"))
    env.emplace_back("UCX_NET_DEVICES=all");
  std::vector<char*> argv_c, env_c;
  for (std::string& a : args) argv_c.push_back(a.data());
  for (std::string& e : env) env_c.push_back(e.data());
  argv_c.push_back(nullptr);
  env_c.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int source = apps == 3 ? fcntl(apps, F_DUPFD_CLOEXEC, 10) : apps;  // dup2 onto itself keeps
  posix_spawn_file_actions_adddup2(&actions, source, 3);             // close-on-exec
  pid_t pid = 0;
  int rc = posix_spawn(&pid, gpurun.c_str(), &actions, nullptr, argv_c.data(), env_c.data());
  posix_spawn_file_actions_destroy(&actions);
  close(apps);
  if (source != apps && source >= 0) close(source);
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
  // Children on other hosts connect over the network; on this host, through the loopback.
  GPURUN_ASSIGN_OR_RETURN(*port,
                          bootstrap::Port::open(names_hosts(r) ? port_address(true) : "127.0.0.1"));
  GPURUN_ASSIGN_OR_RETURN(pid_t pid, start_job(r, (*port)->name()));
  return (*port)->accept(idle_turn, [pid] { return still_running(pid); });
}

int spawn(const Call& call, const Request& r, int root, MPI_Comm comm, MPI_Comm* intercomm,
          int* errcodes) {
  if (int rc = check_group_args(call, comm, root, intercomm); rc != MPI_SUCCESS) return rc;
  CommEntry* entry = find_comm(comm);
  std::unique_ptr<bootstrap::Port> port;  // the root's, closed on return
  int rc = connect_groups(
      call, comm, root, ConnectSide::kAccept, [&] { return open_for_children(r, &port); },
      intercomm, MPI_ERR_SPAWN, names_hosts(r));
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
      [&name] { return connect_to_port(name.c_str()); }, &g_parent, MPI_ERR_SPAWN,
      reaches_other_hosts(name.c_str()));
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
      r.commands.push_back(Command{array_of_commands[k], array_of_argv ? array_of_argv[k] : nullptr,
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

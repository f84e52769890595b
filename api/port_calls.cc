// Ports and the calls that connect groups through them: MPI_Open_port, MPI_Close_port,
// MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join and MPI_Comm_disconnect (the handshake:
// api/connect.h; ports: runtime/bootstrap/port.h).
//
// A port listens on the loopback in a job on one host, on the first network interface that is up
// in a job across hosts; GPURUN_PORT_ADDRESS names another address of this host. MPI_Comm_join
// opens a port on each side, trades the names over the program's socket, and the side whose name
// sorts first accepts.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "api/checks.h"
#include "api/comm_build.h"
#include "api/connect.h"
#include "api/requests.h"
#include "runtime/base/param.h"

namespace gpurun::api {
namespace {

param::Param<std::string> g_port_address(
    "GPURUN_PORT_ADDRESS", "",
    "IPv4 address of this host that ports (MPI_Open_port, MPI_Comm_join) listen on; empty: the "
    "loopback in a job on one host (only programs of this host can connect), the first "
    "network interface that is up in a job across hosts.");

// Where a port listens when GPURUN_PORT_ADDRESS does not say.
std::string default_port_address(bool other_hosts) {
  if (state().bootstrap->job().num_nodes <= 1 && !other_hosts) return "127.0.0.1";
  ifaddrs* list = nullptr;
  std::string found = "127.0.0.1";
  if (getifaddrs(&list) != 0) return found;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET ||
        (a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0)
      continue;
    char text[INET_ADDRSTRLEN];
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) {
      found = text;
      break;
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

std::string port_address(bool other_hosts) {
  std::string address = g_port_address.get();
  return address.empty() ? default_port_address(other_hosts) : address;
}

namespace {

std::map<std::string, std::unique_ptr<bootstrap::Port>>& ports() {
  static std::map<std::string, std::unique_ptr<bootstrap::Port>> open;
  return open;
}

Result<std::unique_ptr<bootstrap::Channel>> accept_on(const char* port_name) {
  if (port_name == nullptr)
    return Status(ErrorCode::kInvalidArgument, "argument port_name is a null pointer at the root");
  auto it = ports().find(port_name);
  if (it == ports().end())
    return Status(ErrorCode::kInvalidArgument,
                  "argument port_name '" + std::string(port_name).substr(0, 80) +
                      "' is no port that the root opened (MPI_Open_port)");
  return it->second->accept(idle_turn);
}

int open_port(const Call& call, std::string* name) {
  std::string address = port_address(false);
  Result<std::unique_ptr<bootstrap::Port>> port = bootstrap::Port::open(address);
  if (!port.ok())
    return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER, "cannot open a port on %s (%s): %s",
                 address.c_str(), std::string(g_port_address.name()).c_str(),
                 std::string(port.status().message()).c_str());
  *name = (*port)->name();
  ports()[*name] = std::move(port).value();
  return MPI_SUCCESS;
}

// MPI_Comm_join's trade over the program's socket: writes `mine` (with its length), reads the
// other side's.
bool trade_over_fd(int fd, const std::string& mine, std::string* theirs) {
  char out[MPI_MAX_PORT_NAME] = {};
  std::memcpy(out, mine.data(), std::min(mine.size(), sizeof out - 1));
  for (std::size_t sent = 0; sent < sizeof out;) {
    ssize_t n = write(fd, out + sent, sizeof out - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  char in[MPI_MAX_PORT_NAME] = {};
  for (std::size_t got = 0; got < sizeof in;) {
    if (!bootstrap::wait_readable(fd, idle_turn)) return false;
    ssize_t n = read(fd, in + got, sizeof in - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  in[sizeof in - 1] = '\0';
  *theirs = in;
  return true;
}

int join(const Call& call, int fd, MPI_Comm* intercomm) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_SELF, intercomm);
  std::string mine, theirs;
  if (int rc = open_port(call, &mine); rc != MPI_SUCCESS) return rc;
  int rc = MPI_SUCCESS;
  if (!trade_over_fd(fd, mine, &theirs)) {
    rc = raise(call, MPI_COMM_SELF, MPI_ERR_ARG,
               "argument fd %d: cannot trade port names over it (%s)", fd,
               errno != 0 ? std::strerror(errno) : "the other side closed it");
  } else if (mine < theirs) {
    rc = connect_groups(
        call, MPI_COMM_SELF, 0, ConnectSide::kAccept, [&] { return accept_on(mine.c_str()); },
        intercomm, MPI_ERR_PORT, reaches_other_hosts(mine.c_str()));
  } else {
    rc = connect_groups(
        call, MPI_COMM_SELF, 0, ConnectSide::kConnect,
        [&] { return connect_to_port(theirs.c_str()); }, intercomm, MPI_ERR_PORT,
        reaches_other_hosts(theirs.c_str()));
  }
  ports().erase(mine);
  return rc;
}

int disconnect(const Call& call, MPI_Comm* comm) {
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, comm);
  GPURUN_CHECK_COMM(entry, *comm);
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise(call, *comm, MPI_ERR_COMM, "argument comm is %s, which cannot be disconnected",
                 *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  // Everything in flight on it completes first, as the standard asks.
  const core::Communicator* c = entry->comm.get();
  wait_until([c] { return !comm_in_use(c); });
  return PMPI_Comm_free(comm);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Open_port(MPI_Info info, char* port_name) {
  GPURUN_API_ENTER("MPI_Open_port");
  (void)info;  // no key is read
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, port_name);
  std::string name;
  if (int rc = open_port(call, &name); rc != MPI_SUCCESS) return rc;
  std::memcpy(port_name, name.c_str(), name.size() + 1);  // far below MPI_MAX_PORT_NAME
  return MPI_SUCCESS;
}

extern "C" int PMPI_Close_port(const char* port_name) {
  GPURUN_API_ENTER("MPI_Close_port");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, port_name);
  if (ports().erase(port_name) == 0)
    return raise(call, MPI_COMM_NULL, MPI_ERR_PORT,
                 "argument port_name '%.80s' is no port this process opened", port_name);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_accept");
  (void)info;
  if (int rc = check_group_args(call, comm, root, newcomm); rc != MPI_SUCCESS) return rc;
  // Only the root's port_name counts (and may be read).
  bool far = find_comm(comm)->comm->rank() == root && reaches_other_hosts(port_name);
  return connect_groups(
      call, comm, root, ConnectSide::kAccept, [port_name] { return accept_on(port_name); }, newcomm,
      MPI_ERR_PORT, far);
}

extern "C" int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                 MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPI_Comm_connect");
  (void)info;
  if (int rc = check_group_args(call, comm, root, newcomm); rc != MPI_SUCCESS) return rc;
  bool far = find_comm(comm)->comm->rank() == root && reaches_other_hosts(port_name);
  return connect_groups(
      call, comm, root, ConnectSide::kConnect, [port_name] { return connect_to_port(port_name); },
      newcomm, MPI_ERR_PORT, far);
}

extern "C" int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  GPURUN_API_ENTER("MPI_Comm_join");
  return join(call, fd, intercomm);
}

extern "C" int PMPI_Comm_disconnect(MPI_Comm* comm) {
  GPURUN_API_ENTER("MPI_Comm_disconnect");
  return disconnect(call, comm);
}

GPURUN_MPI_ALIAS(MPI_Open_port)
GPURUN_MPI_ALIAS(MPI_Close_port)
GPURUN_MPI_ALIAS(MPI_Comm_accept)
GPURUN_MPI_ALIAS(MPI_Comm_connect)
GPURUN_MPI_ALIAS(MPI_Comm_join)
GPURUN_MPI_ALIAS(MPI_Comm_disconnect)

// Name publishing: MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name (api/names.h).
//
// A published name is a file in one directory of this host that every job of the user sees
// (GPURUN_NAME_DIR; by default /tmp/gpurun-names-<uid>). Its name is a hash of the service name;
// it holds who published it (pid, start time, pid scope), the service name and the port name,
// written whole before it appears (link of a finished file), so a reader never sees half of one.
// A name whose publisher has ended is gone: a lookup does not find it (and removes it), a publish
// replaces it; a process that died without unpublishing leaves nothing that misleads. MPI_Finalize
// unpublishes what the process left published, and the directory goes with its last name.
#include "api/names.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "api/call.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"
#include "runtime/base/process.h"

namespace gpurun::api {
namespace {

param::Param<std::string> g_name_dir(
    "GPURUN_NAME_DIR", "",
    "Directory of the names that MPI_Publish_name publishes and MPI_Lookup_name finds, shared "
    "by the jobs that should see each other's names; empty: /tmp/gpurun-names-<uid> (the "
    "user's jobs on this host).");

std::map<std::string, std::string>& published() {  // by this process: service -> port
  static std::map<std::string, std::string> names;
  return names;
}

std::string name_dir() {
  std::string dir = g_name_dir.get();
  return dir.empty() ? "/tmp/gpurun-names-" + std::to_string(getuid()) : dir;
}

std::string file_of(const std::string& service) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : service) h = (h ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return name_dir() + "/" + hex + ".name";
}

struct Record {
  long pid = 0;
  unsigned long long started = 0;
  std::string scope, service, port;
  bool mine() const {
    return pid == getpid() && process_start_time(getpid()) == started && scope == pid_scope();
  }
  bool gone() const {
    return scope != pid_scope() ? false : process_gone(static_cast<pid_t>(pid), started);
  }
};

// The record in `path`; false when there is none (or it is not whole).
bool read_record(const std::string& path, Record* r) {
  std::ifstream in(path);
  if (!(in >> r->pid >> r->started >> r->scope)) return false;
  in.ignore(1);
  return std::getline(in, r->service) && std::getline(in, r->port);
}

// The published record of `service`; a record its publisher left behind goes.
bool find(const std::string& service, Record* r) {
  std::string path = file_of(service);
  if (!read_record(path, r) || r->service != service) return false;
  if (!r->gone()) return true;
  std::remove(path.c_str());
  return false;
}

void remove_name(const std::string& service) {
  std::remove(file_of(service).c_str());
  rmdir(name_dir().c_str());  // only once empty
}

// Writes the record of `service` under a name of this process's in `dir` (made first: another
// process may remove it once empty, at any time). Returns that file, or empty with errno set.
std::string write_record(const std::string& dir, const std::string& path,
                         const std::string& service, const std::string& port) {
  std::string tmp = path + "." + std::to_string(getpid()) + ".new";
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return {};
  std::ofstream out(tmp);
  out << getpid() << ' ' << process_start_time(getpid()).value_or(0) << ' ' << pid_scope() << '\n'
      << service << '\n'
      << port << '\n';
  out.close();
  if (!out) {
    std::remove(tmp.c_str());
    if (errno == 0) errno = EIO;
    return {};
  }
  return tmp;
}

// Publishes, or says who holds the name.
int publish(const Call& call, const std::string& service, const std::string& port) {
  std::string dir = name_dir(), path = file_of(service);
  int error = 0;
  // The directory may go between two steps (its last name unpublished elsewhere): then again.
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string tmp = write_record(dir, path, service, port);
    if (tmp.empty()) {
      error = errno;
      if (error == ENOENT) continue;
      break;
    }
    int rc = link(tmp.c_str(), path.c_str());
    error = rc == 0 ? 0 : errno;
    std::remove(tmp.c_str());
    if (rc == 0) {
      published()[service] = port;
      GPURUN_LOG(debug, init, "published '%s' as %s", service.c_str(), port.c_str());
      return MPI_SUCCESS;
    }
    if (error != EEXIST && error != ENOENT) break;
    Record held;
    if (error == EEXIST && find(service, &held))
      return raise(call, MPI_COMM_NULL, MPI_ERR_SERVICE,
                   "argument service_name '%.80s' is already published (by process %ld)",
                   service.c_str(), held.pid);
    if (error == EEXIST) std::remove(path.c_str());  // a hash twin or one left: replaced
  }
  return raise(call, MPI_COMM_NULL, MPI_ERR_OTHER, "cannot publish in %s (%s): %s", dir.c_str(),
               std::string(g_name_dir.name()).c_str(), std::strerror(error));
}

int check_service(const Call& call, const char* service) {
  if (service == nullptr || service[0] == '\0')
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument service_name is %s",
                 service == nullptr ? "a null pointer" : "empty");
  if (std::strchr(service, '\n') != nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument service_name holds a line break");
  return MPI_SUCCESS;
}

}  // namespace

void unpublish_names() {
  for (const auto& [service, port] : published()) {
    Record r;
    if (find(service, &r) && r.mine()) remove_name(service);
  }
  published().clear();
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  GPURUN_API_ENTER("MPI_Publish_name");
  (void)info;
  if (int rc = check_service(call, service_name); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, port_name);
  return publish(call, service_name, port_name);
}

extern "C" int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  GPURUN_API_ENTER("MPI_Lookup_name");
  (void)info;
  if (int rc = check_service(call, service_name); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, port_name);
  Record r;
  if (!find(service_name, &r))
    return raise(call, MPI_COMM_NULL, MPI_ERR_NAME, "no service '%.80s' is published (in %s)",
                 service_name, name_dir().c_str());
  std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", r.port.c_str());
  return MPI_SUCCESS;
}

extern "C" int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  GPURUN_API_ENTER("MPI_Unpublish_name");
  (void)info;
  if (int rc = check_service(call, service_name); rc != MPI_SUCCESS) return rc;
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, port_name);
  Record r;
  if (!find(service_name, &r) || !r.mine())
    return raise(call, MPI_COMM_NULL, MPI_ERR_SERVICE,
                 "argument service_name '%.80s' is not published by this process", service_name);
  if (r.port != port_name)
    return raise(call, MPI_COMM_NULL, MPI_ERR_SERVICE,
                 "argument port_name is not the port '%.80s' is published with", service_name);
  remove_name(service_name);
  published().erase(service_name);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Publish_name)
GPURUN_MPI_ALIAS(MPI_Lookup_name)
GPURUN_MPI_ALIAS(MPI_Unpublish_name)

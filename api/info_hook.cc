// gpurun_info(topic): what `gpurun --info <topic>` prints about the library. gpurun loads
// libmpi with dlopen and calls this, so the launcher lists knobs it does not link.
#include <cstdlib>
#include <cstring>
#include <string>

#include "coll/selector.h"
#include "gpurun/build_config.h"
#include "runtime/base/param.h"
#include "runtime/topo/path_policy.h"

namespace {

char* to_malloced(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

// The transports of this build, in order of preference within each reach, for the path
// policy of `gpurun --explain`: self and shm always, cuda_ipc when CUDA was built, ucx and
// ofi when found. A transport that moves device memory says so; whether it can on a given
// host is for the transport to find at connect time.
std::string transports() {
  using gpurun::topo::Reach;
  std::vector<gpurun::topo::TransportInfo> list = {
      {.name = "self", .reach = Reach::kSelf, .host_memory = true, .device_memory = true},
      {.name = "shm", .reach = Reach::kHost, .host_memory = true}};
  if (GPURUN_HAVE_CUDA)
    list.push_back(
        {.name = "cuda_ipc", .reach = Reach::kHost, .host_memory = false, .device_memory = true});
  if (GPURUN_HAVE_UCX)
    list.push_back(
        {.name = "ucx", .reach = Reach::kNetwork, .host_memory = true, .device_memory = true});
  if (GPURUN_HAVE_OFI)
    list.push_back(
        {.name = "ofi", .reach = Reach::kNetwork, .host_memory = true, .device_memory = true});
  return gpurun::topo::format_transports(list);
}

}  // namespace

// Returns a malloc'd text the caller frees, or NULL for an unknown topic.
extern "C" __attribute__((visibility("default"))) char* gpurun_info(const char* topic) {
  if (topic == nullptr) return nullptr;
  namespace param = gpurun::param;
  if (std::strcmp(topic, "params") == 0) return to_malloced(param::format_table(param::all()));
  if (std::strcmp(topic, "param-names") == 0) {
    std::string names;
    for (param::ParamBase* p : param::all()) names += std::string(p->name()) + "\n";
    return to_malloced(names);
  }
  if (std::strcmp(topic, "transports") == 0) return to_malloced(transports());
  if (std::strcmp(topic, "algos") == 0) return to_malloced(gpurun::coll::describe_algorithms());
  return nullptr;
}

// gpurun_info(topic): what `gpurun --info <topic>` prints about the library. gpurun loads
// libmpi with dlopen and calls this, so the launcher lists knobs it does not link.
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/base/param.h"

namespace {

char* to_malloced(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
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
  return nullptr;
}

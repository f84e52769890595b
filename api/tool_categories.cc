// MPI_T categories: one per module of gpurun's knobs (the word after GPURUN_, lower case), in
// the order their first knob was registered, each holding its knobs (control variables) and
// the performance variables of that module. Categories hold no categories and no events, and
// never change while the process runs (MPI_T_category_changed stays 0).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "api/tools.h"
#include "runtime/base/param.h"

namespace gpurun::api {
namespace {

struct Category {
  std::string name;
  std::string desc;
  std::vector<int> cvars;
  std::vector<int> pvars;
};

std::string describe(const std::string& module) {
  static const std::map<std::string, std::string, std::less<>> kDescriptions = {
      {"assert", "Assertions that every communicator makes unless its info says otherwise."},
      {"coll", "Collective operations: algorithm choice and the shared-memory collectives."},
      {"cuda", "CUDA device memory: the driver, IPC between ranks of a host, staging, caches."},
      {"io", "MPI-IO: data sieving and two-phase collective access."},
      {"log", "Logging: threshold and subsystems."},
      {"name", "Name publishing (MPI_Publish_name, MPI_Lookup_name)."},
      {"ofi", "The ofi network transport (libfabric)."},
      {"param", "Where knob values come from besides the environment."},
      {"parent", "What MPI_Comm_spawn tells the processes it starts."},
      {"partitioned", "Partitioned communication."},
      {"pml", "Point-to-point messages: protocols, matching and their counts."},
      {"port", "Ports (MPI_Open_port, MPI_Comm_join)."},
      {"progress", "How a waiting rank waits, and the progress helper thread."},
      {"shm", "The shared-memory transport between ranks of a host."},
      {"spawn", "Dynamic processes (MPI_Comm_spawn)."},
      {"topo", "The node's topology: placement and the paths between ranks and devices."},
      {"transports", "Which transports carry messages."},
      {"ucx", "The ucx network transport (UCX)."},
  };
  auto it = kDescriptions.find(module);
  return it != kDescriptions.end() ? it->second : "gpurun's " + module + " knobs.";
}

Category& category_named(std::vector<Category>& all, const std::string& name) {
  for (Category& c : all)
    if (c.name == name) return c;
  all.push_back(Category{name, describe(name), {}, {}});
  return all.back();
}

const std::vector<Category>& categories() {
  static const std::vector<Category> all = [] {
    std::vector<Category> out;
    auto knobs = param::all();
    for (std::size_t i = 0; i < knobs.size(); ++i)
      category_named(out, tool_module_of(knobs[i]->name())).cvars.push_back(static_cast<int>(i));
    for (int i = 0; i < tool_pvar_count(); ++i)
      category_named(out, std::string(tool_pvar_category(i))).pvars.push_back(i);
    return out;
  }();
  return all;
}

// The category at `index` into *c, or the error.
int find(int index, const Category** c) {
  if (int rc = tool_initialized()) return rc;
  const auto& all = categories();
  if (index < 0 || static_cast<std::size_t>(index) >= all.size()) return MPI_T_ERR_INVALID_INDEX;
  *c = &all[index];
  return MPI_SUCCESS;
}

int get_num(int* num) {
  if (int rc = tool_initialized()) return rc;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = static_cast<int>(categories().size());
  return MPI_SUCCESS;
}

int changed(int* update_number) {
  if (int rc = tool_initialized()) return rc;
  if (update_number == nullptr) return MPI_T_ERR_INVALID;
  *update_number = 0;
  return MPI_SUCCESS;
}

int get_info(int index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
             int* num_pvars, int* num_categories) {
  const Category* c = nullptr;
  if (int rc = find(index, &c)) return rc;
  tool_string(c->name, name, name_len);
  tool_string(c->desc, desc, desc_len);
  if (num_cvars != nullptr) *num_cvars = static_cast<int>(c->cvars.size());
  if (num_pvars != nullptr) *num_pvars = static_cast<int>(c->pvars.size());
  if (num_categories != nullptr) *num_categories = 0;
  return MPI_SUCCESS;
}

int get_index(const char* name, int* index) {
  if (int rc = tool_initialized()) return rc;
  if (name == nullptr || index == nullptr) return MPI_T_ERR_INVALID;
  const auto& all = categories();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) {
      *index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

// The first `len` of the category's members that `members` picks, into `indices`.
int list(int index, int len, int* indices, const std::vector<int> Category::*members) {
  const Category* c = nullptr;
  if (int rc = find(index, &c)) return rc;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  const std::vector<int>& m = c->*members;
  std::copy_n(m.begin(), std::min<std::size_t>(m.size(), static_cast<std::size_t>(len)), indices);
  return MPI_SUCCESS;
}

// For the members no category has (categories, events): a valid category lists none.
int list_none(int index, int len, int* indices) {
  const Category* c = nullptr;
  if (int rc = find(index, &c)) return rc;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;
}

int num_events(int index, int* num) {
  const Category* c = nullptr;
  if (int rc = find(index, &c)) return rc;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = 0;
  return MPI_SUCCESS;
}

}  // namespace

std::string tool_module_of(std::string_view knob_name) {
  constexpr std::string_view kPrefix = "GPURUN_";
  if (knob_name.starts_with(kPrefix)) knob_name.remove_prefix(kPrefix.size());
  std::string module(knob_name.substr(0, knob_name.find('_')));
  for (char& ch : module) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return module;
}

}  // namespace gpurun::api

namespace t = gpurun::api;

GPURUN_TOOL_FN(MPI_T_category_get_num, (int* num_cat), t::get_num(num_cat))
GPURUN_TOOL_FN(MPI_T_category_changed, (int* update_number), t::changed(update_number))
GPURUN_TOOL_FN(MPI_T_category_get_info,
               (int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                int* num_pvars, int* num_categories),
               t::get_info(cat_index, name, name_len, desc, desc_len, num_cvars, num_pvars,
                           num_categories))
GPURUN_TOOL_FN(MPI_T_category_get_index, (const char* name, int* cat_index),
               t::get_index(name, cat_index))
GPURUN_TOOL_FN(MPI_T_category_get_num_events, (int cat_index, int* num_events),
               t::num_events(cat_index, num_events))
GPURUN_TOOL_FN(MPI_T_category_get_categories, (int cat_index, int len, int* indices),
               t::list_none(cat_index, len, indices))
GPURUN_TOOL_FN(MPI_T_category_get_cvars, (int cat_index, int len, int* indices),
               t::list(cat_index, len, indices, &t::Category::cvars))
GPURUN_TOOL_FN(MPI_T_category_get_pvars, (int cat_index, int len, int* indices),
               t::list(cat_index, len, indices, &t::Category::pvars))
GPURUN_TOOL_FN(MPI_T_category_get_events, (int cat_index, int len, int* indices),
               t::list_none(cat_index, len, indices))

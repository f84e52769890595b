#include "launcher/environment.h"

#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <string_view>

#include "launcher/params.h"

extern char** environ;

namespace gpurun::launcher {
namespace {

// Slurm variables that describe the allocation rather than a step stay: a gpurun inside an
// allocation is still part of that job.
constexpr std::array<std::string_view, 9> kSlurmJobLevel = {
    "SLURM_JOB_ID",      "SLURM_JOBID",         "SLURM_JOB_NAME",
    "SLURM_CONF",        "SLURM_CLUSTER_NAME",  "SLURM_SUBMIT_DIR",
    "SLURM_SUBMIT_HOST", "SLURM_JOB_PARTITION", "SLURM_JOB_ACCOUNT"};

// Open MPI settings that a user may set on purpose (component choices); its job and
// run-time wiring variables go.
bool is_ompi_user_setting(std::string_view name) {
  if (name.starts_with("OMPI_ALLOW_RUN_AS_ROOT")) return true;
  if (!name.starts_with("OMPI_MCA_")) return false;
  std::string_view mca = name.substr(9);
  return !(mca.starts_with("orte_") || mca.starts_with("ess") || mca.starts_with("pmix") ||
           mca.starts_with("initial_wdir") || mca.starts_with("shmem_RUNTIME"));
}

}  // namespace

bool is_inherited_launcher_variable(const std::string& name) {
  std::string_view n = name;
  // PMIX_MCA_* are user settings of the PMIx library; everything else PMIX_ is wiring.
  if (n.starts_with("PMIX_")) return !n.starts_with("PMIX_MCA_");
  if (n.starts_with("PMI_") || n == "PMI_RANK" || n.starts_with("MPI_LOCAL")) return true;
  if (n.starts_with("HYDRA_") || n.starts_with("HYDI_")) return true;
  if (n.starts_with("SLURM_")) {
    for (std::string_view keep : kSlurmJobLevel)
      if (n == keep) return false;
    return true;
  }
  if (n.starts_with("OMPI_")) return !is_ompi_user_setting(n);
  return false;
}

std::vector<std::string> scrub_inherited_environment() {
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string name(entry.substr(0, entry.find('=')));
    if (is_inherited_launcher_variable(name)) names.push_back(name);
  }
  for (const std::string& name : names) unsetenv(name.c_str());
  return names;
}

void set_pmix_environment() {
  // The data store is the only PMIx component choice that changes startup time measurably
  // (see bench/startup); it is a knob so that ds21 can be compared.
  setenv("PMIX_MCA_gds", params::pmix_gds().get().c_str(), 1);
}

void add_rank_variables(std::vector<std::string>& env, const RankPosition& where) {
  auto set = [&env](std::string_view name, int value) {
    std::string entry = std::string(name) + "=" + std::to_string(value);
    for (std::string& e : env)
      if (e.size() > name.size() && e.starts_with(name) && e[name.size()] == '=') {
        e = std::move(entry);
        return;
      }
    env.push_back(std::move(entry));
  };
  for (std::string_view prefix : {"OMPI_COMM_WORLD_", "MV2_COMM_WORLD_"}) {
    std::string p(prefix);
    set(p + "RANK", where.rank);
    set(p + "SIZE", where.size);
    set(p + "LOCAL_RANK", where.local_rank);
    set(p + "LOCAL_SIZE", where.local_size);
  }
  set("OMPI_COMM_WORLD_NODE_RANK", where.local_rank);
  set("MPI_LOCALRANKID", where.local_rank);
  set("MPI_LOCALNRANKS", where.local_size);
}

std::string library_path_with(const std::string& current, const std::string& dir) {
  std::string_view rest = current;
  while (!rest.empty()) {
    std::size_t colon = rest.find(':');
    if (rest.substr(0, colon) == dir) return current;
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return current.empty() ? dir : current + ":" + dir;
}

std::string library_dir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (exe.parent_path() / ".." / "lib").lexically_normal().string();
}

void add_library_path() {
  std::string dir = library_dir();
  if (dir.empty() || access((dir + "/libmpi.so.12").c_str(), R_OK) != 0) return;
  const char* current = getenv("LD_LIBRARY_PATH");
  setenv("LD_LIBRARY_PATH", library_path_with(current ? current : "", dir).c_str(), 1);
}

std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& exports) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [export_name, value] : exports) overridden |= (name == export_name);
    if (!overridden) env.emplace_back(entry);
  }
  for (const auto& [name, value] : exports) env.push_back(name + "=" + value);
  return env;
}

}  // namespace gpurun::launcher

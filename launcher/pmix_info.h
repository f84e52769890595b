// Building pmix_info_t arrays for the server calls, and the job's keys.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/pmix_server.h"

namespace gpurun::launcher {

// An owning array of pmix_info_t (destructed with PMIX_INFO_DESTRUCT).
class InfoList {
 public:
  InfoList() = default;
  ~InfoList();
  InfoList(InfoList&& other) noexcept : items_(std::move(other.items_)) {}
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  void add_string(const char* key, const std::string& value);
  void add_bool(const char* key, bool value);
  void add_uint32(const char* key, std::uint32_t value);
  void add_uint16(const char* key, std::uint16_t value);
  void add_rank(const char* key, pmix_rank_t value);
  void add_topology(const char* key, pmix_topology_t* topology);  // not owned
  void add_regex(const char* key, char* regex);  // takes a regex from PMIx_generate_*
  // Moves `list` into a PMIX_DATA_ARRAY value (PMIX_PROC_DATA).
  void add_array(const char* key, InfoList&& list);

  pmix_info_t* data() { return items_.data(); }
  std::size_t size() const { return items_.size(); }

 private:
  pmix_info_t& next();
  std::vector<pmix_info_t> items_;
};

// Job-level keys (standard PMIx ones and gpurun's of runtime/bootstrap/keys.h) as `job.node`'s
// server registers them, and the PMIX_PROC_DATA arrays of every rank of the job.
InfoList job_info(const std::string& nspace, const JobLayout& job);

}  // namespace gpurun::launcher

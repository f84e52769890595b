// An info object: an ordered list of (key, value) string pairs, the hints of MPI_Info. Keys
// keep the order in which they were first set (MPI_Info_get_nthkey walks it); setting a key
// again replaces its value in place. Length limits are the API layer's to check.
//
// Not thread-safe: the API layer serialises callers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpurun::core {

class Info {
 public:
  void set(std::string_view key, std::string_view value);
  // The value of `key`, or nullptr when it is not set.
  const std::string* get(std::string_view key) const;
  // Removes `key`; false when it was not set.
  bool erase(std::string_view key);
  int size() const { return static_cast<int>(entries_.size()); }
  // The n-th key (0 <= n < size()).
  const std::string& key(int n) const { return entries_[n].first; }
  const std::string& value(int n) const { return entries_[n].second; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Binary values in info values, as MPICH's MPIX_Info_set_hex writes them: two lower-case
// hexadecimal digits per byte, in memory order. decode_hex takes either case and is false
// unless `hex` holds exactly `size` bytes.
std::string encode_hex(const void* value, std::size_t size);
bool decode_hex(std::string_view hex, void* out, std::size_t size);

}  // namespace gpurun::core

#include "runtime/core/info.h"

#include <algorithm>

namespace gpurun::core {

void Info::set(std::string_view key, std::string_view value) {
  for (auto& e : entries_) {
    if (e.first == key) {
      e.second = value;
      return;
    }
  }
  entries_.emplace_back(std::string(key), std::string(value));
}

const std::string* Info::get(std::string_view key) const {
  for (const auto& e : entries_)
    if (e.first == key) return &e.second;
  return nullptr;
}

bool Info::erase(std::string_view key) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [key](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

}  // namespace gpurun::core

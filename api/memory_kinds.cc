#include "api/memory_kinds.h"

#include <strings.h>

#include <string>

#include "cuda/accelerator.h"
#include "runtime/base/log.h"
#include "runtime/base/param.h"

namespace gpurun::api {
namespace {

param::Param<std::string> g_assert_kinds(
    "GPURUN_ASSERT_MEMORY_ALLOC_KINDS", "",
    "The memory allocation kinds that every communicator asserts unless its info sets "
    "mpi_assert_memory_alloc_kinds (same syntax, e.g. \"cuda:device\"); set it alike on every "
    "rank. \"cuda:device\" (or with cuda:managed): collectives on one host run device buffers "
    "through algorithms that move device memory instead of staging them around the "
    "shared-memory ones; a rank that passes host memory all the same gets correct results, "
    "slower. Empty: no assertion.");

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Whether `keep` holds for every kind of the comma-separated `list` (spaces around a kind
// trimmed; an empty entry is a kind too), asked in order until one fails.
template <class Keep>
bool every_kind(std::string_view list, Keep keep) {
  while (true) {
    std::size_t comma = list.find(',');
    if (!keep(trimmed(list.substr(0, comma)))) return false;
    if (comma == std::string_view::npos) return true;
    list.remove_prefix(comma + 1);
  }
}

// A kind that MPI 4.1 or the kinds' side document for CUDA names: system, mpi (with a
// restrictor or not), cuda, cuda:device, cuda:host, cuda:managed.
bool known_kind(std::string_view kind) {
  for (std::string_view k : {"system", "mpi", "cuda", "cuda:device", "cuda:host", "cuda:managed"})
    if (equal_ignoring_case(kind, k)) return true;
  return kind.size() > 4 && equal_ignoring_case(kind.substr(0, 4), "mpi:");
}

bool device_kind(std::string_view kind) {
  return equal_ignoring_case(kind, "cuda:device") || equal_ignoring_case(kind, "cuda:managed");
}

// The knob's value, with one warning for a kind that no document names (a typo such as
// "cuda:devise" would otherwise assert nothing, silently).
const std::string& knob_kinds() {
  static const bool checked = [] {
    const std::string& value = g_assert_kinds.get();
    return trimmed(value).empty() || every_kind(value, [&value](std::string_view kind) {
             if (known_kind(kind)) return true;
             GPURUN_LOG(warn, coll,
                        "GPURUN_ASSERT_MEMORY_ALLOC_KINDS=\"%s\" names the unknown kind \"%.*s\" "
                        "(known: system, mpi, cuda, cuda:device, cuda:host, cuda:managed); it "
                        "asserts nothing",
                        value.c_str(), static_cast<int>(kind.size()), kind.data());
             return false;
           });
  }();
  (void)checked;
  return g_assert_kinds.get();
}

}  // namespace

bool lists_device_kinds_only(std::string_view value) {
  return !trimmed(value).empty() && every_kind(value, device_kind);
}

std::string supported_kinds() {
  return cuda::usable() ? "mpi,system,cuda:device,cuda:host,cuda:managed" : "mpi,system";
}

bool asserts_device_only(const core::Info* hints) {
  const std::string* value = hints != nullptr ? hints->get(kAssertKindsKey) : nullptr;
  return lists_device_kinds_only(value != nullptr ? *value : knob_kinds());
}

}  // namespace gpurun::api

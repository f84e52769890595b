#include "cuda/support.h"

#include <array>
#include <mutex>

#include "cuda/accelerator.h"

namespace gpurun::cuda::support {
namespace {

constexpr auto kFamilies = static_cast<std::size_t>(Family::kCount);

struct Registry {
  std::mutex mutex;
  std::array<Answer, kFamilies> answers{};
  std::array<bool, kFamilies> declared{};
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

std::string_view path_name(Path path) {
  switch (path) {
    case Path::kRefused:
      return "refused";
    case Path::kStaged:
      return "staged";
    case Path::kNative:
      return "native";
  }
  return "?";
}

std::string_view family_name(Family family) {
  switch (family) {
    case Family::kPointToPoint:
      return "point-to-point";
    case Family::kCollective:
      return "collectives";
    case Family::kReduction:
      return "reductions";
    case Family::kReduceLocal:
      return "MPI_Reduce_local";
    case Family::kPack:
      return "pack";
    case Family::kCount:
      break;
  }
  return "?";
}

void declare(Family family, Path path, std::string detail) {
  auto i = static_cast<std::size_t>(family);
  if (i >= kFamilies) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.answers[i] = Answer{path, std::move(detail)};
  r.declared[i] = true;
}

Answer path(Family family) {
  auto i = static_cast<std::size_t>(family);
  if (!usable()) return Answer{Path::kRefused, "CUDA is unusable: " + unusable_reason()};
  if (i >= kFamilies) return Answer{Path::kRefused, "unknown family"};
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.declared[i])
    return Answer{Path::kRefused, std::string(family_name(family)) +
                                      " do not take device buffers in this build yet"};
  return r.answers[i];
}

void reset() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.answers = {};
  r.declared = {};
}

}  // namespace gpurun::cuda::support

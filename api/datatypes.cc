#include "api/datatypes.h"

#include <map>
#include <memory>

#include "api/handle.h"

namespace gpurun::api {

// Predefined datatypes carry their size in the handle (MPICH encoding: bits 8-15).
const core::Datatype* find_datatype(MPI_Datatype handle) {
  static std::map<MPI_Datatype, std::shared_ptr<core::Datatype>> predefined;
  if (handle_kind(handle) != HandleKind::kBuiltin || handle_type(handle) != ObjectType::kDatatype)
    return nullptr;
  auto it = predefined.find(handle);
  if (it != predefined.end()) return it->second.get();
  std::int64_t size = (static_cast<std::uint32_t>(handle) >> 8) & 0xff;
  if (size == 0) return nullptr;
  auto type = core::Datatype::predefined(core::BasicType::kByte, size, "predefined");
  return predefined.emplace(handle, std::move(type)).first->second.get();
}

}  // namespace gpurun::api

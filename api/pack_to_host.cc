// pack_to_host (api/pt2pt.h): the bytes of a message into host memory, wherever it lies, for
// the calls that hold a copy of it (MPI_Bsend, MPI_Sendrecv_replace and their kin).
#include "api/pt2pt.h"

namespace gpurun::api {

int pack_to_host(const Call& call, MPI_Comm comm, const pml::SendArgs& args, std::byte* dst) {
  auto bytes = static_cast<std::size_t>(args.count * args.type->size());
  if (args.memory == accel::MemoryKind::kHost) {
    args.type->pack(args.buf, args.count, 0, dst, bytes);
    return MPI_SUCCESS;
  }
  if (!args.type->contiguous()) return raise_status(call, comm, pml::device_type_error(*args.type));
  const auto* first = static_cast<const std::byte*>(args.buf) + args.type->true_lb();
  if (Status st = accel::current().copy(dst, first, bytes); !st.ok())
    return raise_status(call, comm, st);
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

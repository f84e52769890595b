// Argument checks of the collective calls (see api/coll.h).
#include "api/checks.h"
#include "api/coll.h"

namespace gpurun::api {

int check_root(const Call& call, MPI_Comm comm, const CommEntry& entry, int root) {
  if (root < 0 || root >= entry.comm->size()) {
    return raise(call, comm, MPI_ERR_ROOT,
                 "argument root %d is not a rank of the communicator (size %d)", root,
                 entry.comm->size());
  }
  return MPI_SUCCESS;
}

int check_not_in_place(const Call& call, MPI_Comm comm, const void* buf, const char* what,
                       const char* where) {
  if (buf != MPI_IN_PLACE) return MPI_SUCCESS;
  if (*where == '\0') {
    return raise(call, comm, MPI_ERR_BUFFER, "argument %s is MPI_IN_PLACE, which %s does not take",
                 what, call.name);
  }
  return raise(call, comm, MPI_ERR_BUFFER, "argument %s is MPI_IN_PLACE, which %s takes only %s",
               what, call.name, where);
}

int check_not_aliased(const Call& call, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                      std::int64_t count) {
  if (count > 0 && sendbuf == recvbuf && sendbuf != nullptr) {
    return raise(call, comm, MPI_ERR_BUFFER,
                 "arguments sendbuf and recvbuf are the same buffer; pass MPI_IN_PLACE as sendbuf "
                 "to work in place");
  }
  return MPI_SUCCESS;
}

int check_counts(const Call& call, MPI_Comm comm, const std::int64_t* counts, int n,
                 const char* what) {
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) {
      return raise(call, comm, MPI_ERR_COUNT, "argument %s[%d] is negative (%lld)", what, i,
                   static_cast<long long>(counts[i]));
    }
  }
  return MPI_SUCCESS;
}

int check_type(const Call& call, MPI_Comm comm, MPI_Datatype handle, const char* what,
               const core::Datatype** type) {
  const core::Datatype* t = find_datatype(handle);
  if (t == nullptr) {
    if (handle == MPI_DATATYPE_NULL)
      return raise(call, comm, MPI_ERR_TYPE, "argument %s is MPI_DATATYPE_NULL", what);
    return raise(call, comm, MPI_ERR_TYPE, "argument %s (0x%x) is not a datatype", what,
                 static_cast<unsigned>(handle));
  }
  if (!t->committed()) {
    return raise(call, comm, MPI_ERR_TYPE, "argument %s is not committed (call MPI_Type_commit)",
                 what);
  }
  *type = t;
  return MPI_SUCCESS;
}

int check_buffer(const Call& call, MPI_Comm comm, const void* buf, std::int64_t count,
                 const core::Datatype* type, const char* what) {
  if (buf == nullptr && count > 0 && type->size() > 0 && type->true_lb() == 0) {
    return raise(call, comm, MPI_ERR_BUFFER, "argument %s is a null pointer with count %lld", what,
                 static_cast<long long>(count));
  }
  return MPI_SUCCESS;
}

int check_count(const Call& call, MPI_Comm comm, std::int64_t count, const char* what) {
  if (count < 0) {
    return raise(call, comm, MPI_ERR_COUNT, "argument %s is negative (%lld)", what,
                 static_cast<long long>(count));
  }
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

#include "api/datatype_args.h"

#include <climits>

namespace gpurun::api {

int lookup_type(const Call& call, MPI_Comm comm, MPI_Datatype handle, const char* arg,
                const core::Datatype** type) {
  *type = find_datatype(handle);
  if (*type != nullptr) [[likely]]
    return MPI_SUCCESS;
  if (handle == MPI_DATATYPE_NULL)
    return raise(call, comm, MPI_ERR_TYPE, "argument %s is MPI_DATATYPE_NULL", arg);
  return raise(call, comm, MPI_ERR_TYPE,
               "argument %s (0x%x) is not a datatype (freed, or never created)", arg,
               static_cast<unsigned>(handle));
}

int lookup_committed(const Call& call, MPI_Comm comm, MPI_Datatype handle, const char* arg,
                     const core::Datatype** type) {
  if (int rc = lookup_type(call, comm, handle, arg, type)) return rc;
  if (!(*type)->committed()) [[unlikely]]
    return raise(call, comm, MPI_ERR_TYPE, "argument %s is not committed (call MPI_Type_commit)",
                 arg);
  return MPI_SUCCESS;
}

int check_pointer(const Call& call, MPI_Comm comm, const void* p, const char* arg) {
  if (p != nullptr) [[likely]]
    return MPI_SUCCESS;
  return raise(call, comm, MPI_ERR_ARG, "argument %s is a null pointer", arg);
}

int check_array(const Call& call, const void* p, std::int64_t count, const char* arg) {
  if (p != nullptr || count <= 0) [[likely]]
    return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "argument %s is a null pointer but should hold %lld elements", arg,
               static_cast<long long>(count));
}

int check_non_negative(const Call& call, std::int64_t value, int error_class, const char* arg) {
  if (value >= 0) [[likely]]
    return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, error_class, "argument %s %lld is negative", arg,
               static_cast<long long>(value));
}

int check_elements_non_negative(const Call& call, std::span<const std::int64_t> values,
                                const char* arg) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0)
      return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument %s[%zu] %lld is negative", arg, i,
                   static_cast<long long>(values[i]));
  }
  return MPI_SUCCESS;
}

int check_fits_int(const Call& call, std::int64_t value, const char* arg) {
  if (value >= INT_MIN && value <= INT_MAX) [[likely]]
    return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, MPI_ERR_VALUE_TOO_LARGE,
               "%s %lld does not fit in an int (use the _c form of the call)", arg,
               static_cast<long long>(value));
}

CallArgs call_args(core::Combiner combiner, bool large, std::vector<std::int64_t> ints,
                   std::vector<std::int64_t> addresses, std::vector<const core::Datatype*> types) {
  CallArgs args{combiner, {}, {}, {}, std::move(types)};
  if (large) {
    args.counts = std::move(ints);
    args.counts.insert(args.counts.end(), addresses.begin(), addresses.end());
  } else {
    args.ints = std::move(ints);
    args.addresses = std::move(addresses);
  }
  return args;
}

int new_type(const Call& call, Result<core::DatatypeRef> type, CallArgs args,
             MPI_Datatype* newtype) {
  if (!type.ok()) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "%s",
                 std::string(type.status().message()).c_str());
  }
  core::Envelope envelope{
      args.combiner, std::move(args.ints), std::move(args.addresses), std::move(args.counts), {}};
  for (const core::Datatype* t : args.types) envelope.types.emplace_back(t);
  core::DatatypeRef t = std::move(type).value();
  t->set_envelope(std::move(envelope));
  *newtype = insert_datatype(std::move(t));
  return MPI_SUCCESS;
}

}  // namespace gpurun::api

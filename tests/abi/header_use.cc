// Compiled as C++20 with -Wall -Wextra -Werror -pedantic by tests/abi: mpi.h must be clean
// C++, and its constants must be constant expressions there too.
#include <mpi.h>

static_assert(MPI_VERSION == 4 && MPI_SUBVERSION == 0);
static_assert(sizeof(MPI_Status) == 5 * sizeof(int));
static_assert(MPI_COMM_WORLD != MPI_COMM_NULL);

namespace {

constexpr MPI_Datatype kTypes[] = {MPI_INT, MPI_DOUBLE, MPI_FLOAT_INT, MPI_INTEGER16};

int datatype_size(MPI_Datatype type) {
  switch (type) {
    case MPI_CHAR:
    case MPI_BYTE:
      return 1;
    case MPI_INT:
    case MPI_FLOAT:
      return 4;
    case MPI_DOUBLE:
      return 8;
    default:
      return MPI_UNDEFINED;
  }
}

}  // namespace

int header_use(void *buf, MPI_Status *status) {
  MPI_Status local{0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
  MPI_Comm_copy_attr_function *copy = MPI_COMM_DUP_FN;
  int total = 0;
  for (MPI_Datatype type : kTypes) total += datatype_size(type);
  const bool in_place = buf == MPI_IN_PLACE || buf == MPI_BOTTOM;
  if (status == MPI_STATUS_IGNORE) status = &local;
  return in_place + status->MPI_SOURCE + (copy != MPI_COMM_NULL_COPY_FN) + total +
         (MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY) + datatype_size(MPI_Type_f2c(MPI_Type_c2f(MPI_INT)));
}

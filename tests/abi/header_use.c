/* Compiled as C99 and C11 with -Wall -Wextra -Werror -pedantic by tests/abi: mpi.h must be
 * clean C, and its constants must work where programs use them (case labels, #if, static
 * initialisers, pointer comparisons). */
#include <mpi.h>

#if MPI_VERSION < 4 || MPI_SUBVERSION != 0
#error "MPI_VERSION and MPI_SUBVERSION must be usable in #if"
#endif

static const MPI_Datatype kTypes[] = {MPI_INT, MPI_DOUBLE, MPI_FLOAT_INT, MPI_INTEGER16};
static MPI_Comm_copy_attr_function *const kCopy = MPI_COMM_DUP_FN;
static MPI_Comm_delete_attr_function *const kDelete = MPI_COMM_NULL_DELETE_FN;

int datatype_size(MPI_Datatype type);
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

int header_use(void *buf, MPI_Status *status);
int header_use(void *buf, MPI_Status *status) {
  MPI_Status local = {0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
  MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD);
  int total = 0;
  unsigned i;
  for (i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i) total += datatype_size(kTypes[i]);
  int in_place = buf == MPI_IN_PLACE || buf == MPI_BOTTOM;
  if (status == MPI_STATUS_IGNORE) status = &local;
  return in_place + status->MPI_SOURCE + (MPI_Comm_f2c(comm) == MPI_COMM_WORLD) +
         (kCopy != MPI_COMM_NULL_COPY_FN) + (kDelete == 0) + total +
         (MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY) + datatype_size(MPI_INT);
}

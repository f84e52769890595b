// Datatype life and queries: MPI_Type_commit, MPI_Type_free, MPI_Type_get_extent,
// MPI_Type_get_true_extent, MPI_Type_size (with their _x and _c forms), MPI_Type_set_name,
// MPI_Type_get_name, MPI_Type_match_size and the deprecated MPI_Type_extent/lb/ub.
#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "api/datatype_args.h"
#include "api/type_attr.h"

namespace gpurun::api {
namespace {

int type_of(const Call& call, MPI_Datatype datatype, const core::Datatype** t) {
  return lookup_type(call, MPI_COMM_NULL, datatype, "datatype", t);
}

template <class Out>
int get_extent(const Call& call, MPI_Datatype datatype, Out* lb, Out* extent, bool true_extent) {
  const core::Datatype* t;
  if (int rc = type_of(call, datatype, &t)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, lb, true_extent ? "true_lb" : "lb")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, extent, true_extent ? "true_extent" : "extent"))
    return rc;
  *lb = true_extent ? t->true_lb() : t->lb();
  *extent = true_extent ? t->true_extent() : t->extent();
  return MPI_SUCCESS;
}

int size_of(const Call& call, MPI_Datatype datatype, MPI_Count* size) {
  const core::Datatype* t;
  if (int rc = type_of(call, datatype, &t)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, size, "size")) return rc;
  *size = t->size();
  return MPI_SUCCESS;
}

struct Match {
  int typeclass;
  int size;
  MPI_Datatype type;
};

// The Fortran types of explicit size, as MPICH answers (mpi.h has no 16-byte integer).
constexpr Match kMatches[] = {
    {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
    {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
    {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},   {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
    {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},   {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
    {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
};

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;
using gpurun::api::raise;

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  GPURUN_API_ENTER("MPI_Type_commit");
  using namespace gpurun::api;
  if (int rc = check_pointer(call, MPI_COMM_NULL, datatype, "datatype")) return rc;
  const gpurun::core::Datatype* t;
  if (int rc = type_of(call, *datatype, &t)) return rc;
  if (!t->predefined()) find_mutable_datatype(*datatype)->commit();
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  GPURUN_API_ENTER("MPI_Type_free");
  using namespace gpurun::api;
  if (int rc = check_pointer(call, MPI_COMM_NULL, datatype, "datatype")) return rc;
  const gpurun::core::Datatype* t;
  if (int rc = type_of(call, *datatype, &t)) return rc;
  if (is_predefined_datatype(*datatype))
    return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE,
                 "argument datatype is the predefined %s, which cannot be freed",
                 t->name().c_str());
  if (is_f90_type(*datatype)) {
    return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE,
                 "argument datatype came from MPI_Type_create_f90_*, and like a predefined type "
                 "cannot be freed");
  }
  if (int rc = delete_type_attributes(call, *datatype); rc != MPI_SUCCESS) return rc;
  erase_datatype(*datatype);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_free)

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  GPURUN_API_ENTER("MPI_Type_get_extent");
  return gpurun::api::get_extent(call, datatype, lb, extent, false);
}
GPURUN_MPI_ALIAS(MPI_Type_get_extent)

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  GPURUN_API_ENTER("MPI_Type_get_extent_x");
  return gpurun::api::get_extent(call, datatype, lb, extent, false);
}
GPURUN_MPI_ALIAS(MPI_Type_get_extent_x)

extern "C" int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  GPURUN_API_ENTER("MPI_Type_get_extent_c");
  return gpurun::api::get_extent(call, datatype, lb, extent, false);
}
GPURUN_MPI_ALIAS(MPI_Type_get_extent_c)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                         MPI_Aint* true_extent) {
  GPURUN_API_ENTER("MPI_Type_get_true_extent");
  return gpurun::api::get_extent(call, datatype, true_lb, true_extent, true);
}
GPURUN_MPI_ALIAS(MPI_Type_get_true_extent)

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  GPURUN_API_ENTER("MPI_Type_get_true_extent_x");
  return gpurun::api::get_extent(call, datatype, true_lb, true_extent, true);
}
GPURUN_MPI_ALIAS(MPI_Type_get_true_extent_x)

extern "C" int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  GPURUN_API_ENTER("MPI_Type_get_true_extent_c");
  return gpurun::api::get_extent(call, datatype, true_lb, true_extent, true);
}
GPURUN_MPI_ALIAS(MPI_Type_get_true_extent_c)

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  GPURUN_API_ENTER("MPI_Type_size");
  MPI_Count bytes = 0;
  if (int rc = gpurun::api::size_of(call, datatype, size == nullptr ? nullptr : &bytes)) return rc;
  *size = bytes > INT_MAX ? MPI_UNDEFINED : static_cast<int>(bytes);  // as MPI-4 asks
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Type_size_x");
  return gpurun::api::size_of(call, datatype, size);
}
GPURUN_MPI_ALIAS(MPI_Type_size_x)

extern "C" int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  GPURUN_API_ENTER("MPI_Type_size_c");
  return gpurun::api::size_of(call, datatype, size);
}
GPURUN_MPI_ALIAS(MPI_Type_size_c)

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  GPURUN_API_ENTER("MPI_Type_set_name");
  using namespace gpurun::api;
  const gpurun::core::Datatype* t;
  if (int rc = type_of(call, datatype, &t)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, type_name, "type_name")) return rc;
  // Longer names are cut to what MPI_Type_get_name can return.
  std::size_t length = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
  find_mutable_datatype(datatype)->set_name(std::string(type_name, length));
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_set_name)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  GPURUN_API_ENTER("MPI_Type_get_name");
  using namespace gpurun::api;
  const gpurun::core::Datatype* t;
  if (int rc = type_of(call, datatype, &t)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, type_name, "type_name")) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, resultlen, "resultlen")) return rc;
  std::size_t length = std::min<std::size_t>(t->name().size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, t->name().data(), length);
  type_name[length] = '\0';
  *resultlen = static_cast<int>(length);
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_get_name)

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  GPURUN_API_ENTER("MPI_Type_match_size");
  using namespace gpurun::api;
  if (int rc = check_pointer(call, MPI_COMM_NULL, datatype, "datatype")) return rc;
  if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER &&
      typeclass != MPI_TYPECLASS_COMPLEX)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
                 "argument typeclass %d is not an MPI_TYPECLASS_ constant", typeclass);
  for (const Match& m : kMatches) {
    if (m.typeclass == typeclass && m.size == size) {
      *datatype = m.type;
      return MPI_SUCCESS;
    }
  }
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "argument size %d: no predefined type of that class has that size", size);
}
GPURUN_MPI_ALIAS(MPI_Type_match_size)

// The MPI-1 queries, removed from MPI-3 but still in MPICH's interface.
extern "C" int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  GPURUN_API_ENTER("MPI_Type_extent");
  MPI_Aint lb;
  if (int rc = gpurun::api::check_pointer(call, MPI_COMM_NULL, extent, "extent")) return rc;
  return gpurun::api::get_extent(call, datatype, &lb, extent, false);
}
GPURUN_MPI_ALIAS(MPI_Type_extent)

extern "C" int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  GPURUN_API_ENTER("MPI_Type_lb");
  MPI_Aint extent;
  return gpurun::api::get_extent(call, datatype, displacement, &extent, false);
}
GPURUN_MPI_ALIAS(MPI_Type_lb)

extern "C" int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  GPURUN_API_ENTER("MPI_Type_ub");
  MPI_Aint lb, extent;
  if (int rc = gpurun::api::check_pointer(call, MPI_COMM_NULL, displacement, "displacement"))
    return rc;
  if (int rc = gpurun::api::get_extent(call, datatype, &lb, &extent, false)) return rc;
  *displacement = lb + extent;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_ub)

// MPI-4.1: the predefined type of (value, index) pairs that MPI_MAXLOC and MPI_MINLOC reduce,
// for `value_type` and `index_type`; MPI_DATATYPE_NULL for a combination that has none.
extern "C" int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                         MPI_Datatype* pair_type) {
  GPURUN_API_ENTER("MPI_Type_get_value_index");
  using namespace gpurun::api;
  for (auto [handle, arg] : {std::pair{value_type, "value_type"}, {index_type, "index_type"}}) {
    if (find_datatype(handle) == nullptr) {
      return raise(call, MPI_COMM_NULL, MPI_ERR_TYPE, "argument %s (0x%x) is not a datatype", arg,
                   static_cast<unsigned>(handle));
    }
  }
  if (int rc = check_pointer(call, MPI_COMM_NULL, pair_type, "pair_type")) return rc;
  static constexpr MPI_Datatype kPairs[][3] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
  };
  *pair_type = MPI_DATATYPE_NULL;
  for (const auto& pair : kPairs)
    if (pair[0] == value_type && pair[1] == index_type) *pair_type = pair[2];
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Type_get_value_index)

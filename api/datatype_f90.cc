// MPI_Type_create_f90_real, _complex and _integer: the type of a Fortran 90 REAL, COMPLEX or
// INTEGER kind chosen by decimal precision and range, as SELECTED_REAL_KIND and
// SELECTED_INT_KIND choose (MPI_UNDEFINED: no demand). The kinds are those of gfortran on this
// platform: REAL 4, 8 and 16 bytes (precision 6, 15, 33; range 37, 307, 4931), INTEGER 1, 2, 4
// and 8 bytes (range 2, 4, 9, 18).
//
// Each (precision, range) gives one type for the life of the process: a duplicate of the
// predefined type of that size whose envelope says MPI_COMBINER_F90_* with the arguments. Like
// a predefined type, it cannot be freed.
#include <map>
#include <tuple>

#include "api/datatype_args.h"
#include "api/datatypes.h"
#include "runtime/core/datatype_build.h"

namespace gpurun::api {
namespace {

struct Kind {
  int precision;  // decimal digits (REAL), unused for INTEGER
  int range;      // decimal exponent range
  MPI_Datatype type;
  MPI_Datatype complex_type;
};

constexpr Kind kReals[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
                           {15, 307, MPI_REAL8, MPI_COMPLEX16},
                           {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
constexpr Kind kIntegers[] = {{0, 2, MPI_INTEGER1, MPI_DATATYPE_NULL},
                              {0, 4, MPI_INTEGER2, MPI_DATATYPE_NULL},
                              {0, 9, MPI_INTEGER4, MPI_DATATYPE_NULL},
                              {0, 18, MPI_INTEGER8, MPI_DATATYPE_NULL}};

using Key = std::tuple<core::Combiner, int, int>;

std::map<Key, MPI_Datatype>& made() {
  static auto* types = new std::map<Key, MPI_Datatype>();
  return *types;
}

int demand(int value) { return value == MPI_UNDEFINED ? 0 : value; }

// The handle for `key`, made from predefined `base` the first time.
int f90_type(const Call& call, const Key& key, MPI_Datatype base, MPI_Datatype* newtype) {
  if (auto it = made().find(key); it != made().end()) {
    *newtype = it->second;
    return MPI_SUCCESS;
  }
  auto [combiner, p, r] = key;
  std::vector<std::int64_t> ints = {p, r};
  if (combiner == core::Combiner::kF90Integer) ints = {r};
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  int rc = new_type(call, core::make_dup(*find_datatype(base)), CallArgs{combiner, ints, {}, {}, {}},
                    &handle);
  if (rc != MPI_SUCCESS) return rc;
  made().emplace(key, handle);
  *newtype = handle;
  return MPI_SUCCESS;
}

int check_arg(const Call& call, const char* arg, int value) {
  if (value >= 0 || value == MPI_UNDEFINED) return MPI_SUCCESS;
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument %s %d is negative", arg, value);
}

int real_or_complex(const Call& call, bool complex, int p, int r, MPI_Datatype* newtype) {
  if (int rc = check_arg(call, "p", p)) return rc;
  if (int rc = check_arg(call, "r", r)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  for (const Kind& k : kReals) {
    if (demand(p) <= k.precision && demand(r) <= k.range) {
      Key key{complex ? core::Combiner::kF90Complex : core::Combiner::kF90Real, p, r};
      return f90_type(call, key, complex ? k.complex_type : k.type, newtype);
    }
  }
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "no %s kind has precision %d and range %d (at most 33 digits and range 4931)",
               complex ? "COMPLEX" : "REAL", p, r);
}

}  // namespace

bool is_f90_type(MPI_Datatype handle) {
  for (const auto& [key, made_handle] : made())
    if (made_handle == handle) return true;
  return false;
}

}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_f90_real");
  return gpurun::api::real_or_complex(call, false, p, r, newtype);
}

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_f90_complex");
  return gpurun::api::real_or_complex(call, true, p, r, newtype);
}

extern "C" int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  GPURUN_API_ENTER("MPI_Type_create_f90_integer");
  using namespace gpurun::api;
  if (int rc = check_arg(call, "r", r)) return rc;
  if (int rc = check_pointer(call, MPI_COMM_NULL, newtype, "newtype")) return rc;
  for (const Kind& k : kIntegers)
    if (demand(r) <= k.range)
      return f90_type(call, Key{gpurun::core::Combiner::kF90Integer, 0, r}, k.type, newtype);
  return raise(call, MPI_COMM_NULL, MPI_ERR_ARG,
               "no INTEGER kind has range %d (at most 18: INTEGER(8))", r);
}

GPURUN_MPI_ALIAS(MPI_Type_create_f90_real)
GPURUN_MPI_ALIAS(MPI_Type_create_f90_complex)
GPURUN_MPI_ALIAS(MPI_Type_create_f90_integer)

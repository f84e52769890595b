// Data representations registered by the program (api/file_datarep.h): MPI_Register_datarep and
// MPI_Register_datarep_c, the registry (under the library's lock, like every call), the extent
// check of a view's and an access's types, and the calls of the conversion functions.
#include "api/file_datarep.h"

#include <cstring>
#include <map>
#include <set>

#include "api/datatypes.h"
#include "api/file.h"

namespace gpurun::api {
namespace {

std::map<std::string, Datarep>& registry() {
  static std::map<std::string, Datarep> reps;
  return reps;
}

bool predefined_name(const std::string& name) {
  return name == "native" || name == "internal" || name == "external32";
}

// The basic elements `type` is made of, once each.
void collect_elements(const core::Datatype& type, std::set<const core::Datatype*>& out) {
  if (type.parts().empty()) {
    if (type.size() > 0) out.insert(&type);
    return;
  }
  for (const core::DatatypeRef& child : type.children()) collect_elements(*child, out);
}

MPI_Datatype element_handle(const core::Datatype* element) {
  MPI_Datatype h = predefined_handle(element);
  return h != MPI_DATATYPE_NULL ? h : predefined_handle(basic_datatype(element->basic()));
}

template <class Conversion>
int register_datarep(const Call& call, const char* datarep, Conversion* read, Conversion* write,
                     MPI_Datarep_extent_function* extent, void* extra_state) {
  if (datarep == nullptr)
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG, "argument datarep is a null pointer");
  std::size_t length = std::strlen(datarep);
  if (length == 0 || length >= MPI_MAX_DATAREP_STRING) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG,
                      "argument datarep has %zu characters (1 to %d allowed)", length,
                      MPI_MAX_DATAREP_STRING - 1);
  }
  if (extent == nullptr) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_ARG,
                      "argument dtype_file_extent_fn is a null pointer");
  }
  std::string name(datarep);
  if (predefined_name(name) || registry().count(name) != 0) {
    return raise_file(call, MPI_FILE_NULL, MPI_ERR_DUP_DATAREP,
                      "argument datarep: \"%s\" is already a data representation", datarep);
  }
  Datarep rep{name};
  if constexpr (std::is_same_v<Conversion, MPI_Datarep_conversion_function>) {
    rep.read = read;
    rep.write = write;
  } else {
    rep.read_c = read;
    rep.write_c = write;
  }
  rep.extent = extent;
  rep.extra_state = extra_state;
  registry().emplace(name, rep);
  return MPI_SUCCESS;
}

}  // namespace

const Datarep* find_datarep(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

int check_datarep_extents(const Call& call, MPI_File fh, const Datarep& rep,
                          const core::Datatype& type, const char* arg) {
  std::set<const core::Datatype*> elements;
  collect_elements(type, elements);
  for (const core::Datatype* e : elements) {
    MPI_Datatype h = element_handle(e);
    MPI_Aint extent = -1;
    int rc = rep.extent(h, &extent, rep.extra_state);
    if (rc != MPI_SUCCESS) {
      return raise_file(call, fh, MPI_ERR_CONVERSION,
                        "argument %s: the extent function of data representation \"%s\" "
                        "returned error code %d for %s",
                        arg, rep.name.c_str(), rc, e->name().c_str());
    }
    if (extent != e->size()) {
      return raise_file(call, fh, MPI_ERR_UNSUPPORTED_DATAREP,
                        "argument %s: data representation \"%s\" gives %s a file extent of %lld "
                        "bytes, not its native %lld: gpurun keeps the native layout in files",
                        arg, rep.name.c_str(), e->name().c_str(), (long long)extent,
                        (long long)e->size());
    }
  }
  return MPI_SUCCESS;
}

Status convert(const Datarep& rep, bool writing, void* userbuf, MPI_Datatype datatype,
               std::int64_t count, std::byte* filebuf) {
  int rc = MPI_SUCCESS;
  if (rep.read != nullptr || rep.write != nullptr) {
    if (count > INT32_MAX) {
      return Status(ErrorCode::kConversion,
                    "more elements than the int count of data representation \"" + rep.name +
                        "\"'s conversion functions can take (register it with "
                        "MPI_Register_datarep_c)");
    }
    auto* fn = writing ? rep.write : rep.read;
    rc = fn(userbuf, datatype, static_cast<int>(count), filebuf, 0, rep.extra_state);
  } else {
    auto* fn = writing ? rep.write_c : rep.read_c;
    rc = fn(userbuf, datatype, count, filebuf, 0, rep.extra_state);
  }
  if (rc == MPI_SUCCESS) return ok_status();
  return Status(ErrorCode::kConversion, std::string("the ") + (writing ? "write" : "read") +
                                            " conversion function of data representation \"" +
                                            rep.name + "\" returned error code " +
                                            std::to_string(rc));
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Register_datarep(const char* datarep,
                                     MPI_Datarep_conversion_function* read_conversion_fn,
                                     MPI_Datarep_conversion_function* write_conversion_fn,
                                     MPI_Datarep_extent_function* dtype_file_extent_fn,
                                     void* extra_state) {
  GPURUN_API_ENTER("MPI_Register_datarep");
  return register_datarep(call, datarep, read_conversion_fn, write_conversion_fn,
                          dtype_file_extent_fn, extra_state);
}
GPURUN_MPI_ALIAS(MPI_Register_datarep)

extern "C" int PMPI_Register_datarep_c(const char* datarep,
                                       MPI_Datarep_conversion_function_c* read_conversion_fn,
                                       MPI_Datarep_conversion_function_c* write_conversion_fn,
                                       MPI_Datarep_extent_function* dtype_file_extent_fn,
                                       void* extra_state) {
  GPURUN_API_ENTER("MPI_Register_datarep_c");
  return register_datarep(call, datarep, read_conversion_fn, write_conversion_fn,
                          dtype_file_extent_fn, extra_state);
}
GPURUN_MPI_ALIAS(MPI_Register_datarep_c)

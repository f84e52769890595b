// The entry points that MPICH's Fortran bindings (Debian's libmpichfort.so.12, which Fortran
// programs built with MPICH's mpifort load) call besides the MPI functions, so that such a
// program runs on gpurun's library: attributes set and got as Fortran integers
// (MPII_Comm/Type/Win_set_attr, _get_attr, with MPICH's MPIR_Attr_type, here AttrKind), and the
// proxies of keyvals whose callbacks are Fortran procedures (MPII_Keyval_set_proxy). A Fortran
// caller gets an integer: the value Fortran set, a C pointer's address, or a predefined
// attribute's value (MPI_TAG_UB's bound, MPI_WIN_BASE's address, MPI_WIN_SIZE's bytes); C gets
// a pointer to the integer Fortran set (api/state.h, Attribute). MPII_Grequest_set_lang_f77
// lives with the generalized requests (api/grequest.cc).
#include "api/attr.h"
#include "api/attr_table.h"
#include "api/type_attr.h"
#include "api/win.h"

namespace {

using gpurun::api::AttrCopyProxy;
using gpurun::api::AttrDeleteProxy;
using gpurun::api::AttrKind;
using gpurun::api::make_attribute;

// MPICH passes MPIR_Attr_type (0 pointer, 1 address-sized integer, 3 integer); anything else is
// taken for an address-sized integer, the kind MPI-2's Fortran calls use.
AttrKind kind_of(int attr_type) {
  switch (attr_type) {
    case 0:
      return AttrKind::kPointer;
    case 3:
      return AttrKind::kInteger;
    default:
      return AttrKind::kAddress;
  }
}

// MPICH's Fortran names each predefined attribute's keyval one above C's (MPI_TAG_UB: 0x64400002
// against 0x64400001).
int c_keyval(int keyval) {
  static constexpr int kPredefined[] = {MPI_TAG_UB,
                                        MPI_HOST,
                                        MPI_IO,
                                        MPI_WTIME_IS_GLOBAL,
                                        MPI_UNIVERSE_SIZE,
                                        MPI_LASTUSEDCODE,
                                        MPI_APPNUM,
                                        MPI_WIN_BASE,
                                        MPI_WIN_SIZE,
                                        MPI_WIN_DISP_UNIT,
                                        MPI_WIN_CREATE_FLAVOR,
                                        MPI_WIN_MODEL};
  for (int c : kPredefined)
    if (keyval == c + 1) return c;
  return keyval;
}

}  // namespace

#define GPURUN_MPICH_INTERNAL extern "C" __attribute__((visibility("default")))

GPURUN_MPICH_INTERNAL int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void* value,
                                             int attr_type) {
  GPURUN_API_ENTER("MPI_Comm_set_attr");
  return gpurun::api::set_comm_attr(call, comm, make_attribute(keyval, value, kind_of(attr_type)));
}

GPURUN_MPICH_INTERNAL int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag,
                                             int attr_type) {
  GPURUN_API_ENTER("MPI_Comm_get_attr");
  return gpurun::api::get_comm_attr(call, comm, c_keyval(keyval), value, flag, kind_of(attr_type));
}

GPURUN_MPICH_INTERNAL int MPII_Win_set_attr(MPI_Win win, int keyval, void* value, int attr_type) {
  GPURUN_API_ENTER("MPI_Win_set_attr");
  return gpurun::api::set_win_attr(call, win, make_attribute(keyval, value, kind_of(attr_type)));
}

GPURUN_MPICH_INTERNAL int MPII_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag,
                                            int attr_type) {
  GPURUN_API_ENTER("MPI_Win_get_attr");
  return gpurun::api::get_win_attr(call, win, c_keyval(keyval), value, flag, kind_of(attr_type));
}

GPURUN_MPICH_INTERNAL int MPII_Type_set_attr(MPI_Datatype type, int keyval, void* value,
                                             int attr_type) {
  GPURUN_API_ENTER("MPI_Type_set_attr");
  return gpurun::api::set_type_attr(call, type, make_attribute(keyval, value, kind_of(attr_type)));
}

GPURUN_MPICH_INTERNAL int MPII_Type_get_attr(MPI_Datatype type, int keyval, void* value, int* flag,
                                             int attr_type) {
  GPURUN_API_ENTER("MPI_Type_get_attr");
  return gpurun::api::get_type_attr(call, type, keyval, value, flag, kind_of(attr_type));
}

// A keyval that MPICH's Fortran bindings just made: its callbacks go through these proxies. An
// unknown keyval is ignored, as MPICH does.
GPURUN_MPICH_INTERNAL void MPII_Keyval_set_proxy(int keyval, AttrCopyProxy* copy_proxy,
                                                 AttrDeleteProxy* delete_proxy) {
  const gpurun::api::BigLock lock;
  if (gpurun::api::Keyval* k = gpurun::api::keyval_of(keyval)) {
    k->copy_proxy = copy_proxy;
    k->delete_proxy = delete_proxy;
  }
}

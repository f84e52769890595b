// libfabric, loaded when the ofi transport is first created (dlopen of libfabric), not when
// libmpi is: loading libfabric loads its providers' libraries, some of which (psm's) spend
// 0.2 s calibrating at load time and move the process between CPUs meanwhile.
//
// Most of libfabric's API is inline calls through its objects' operation tables; the few
// functions it exports are called through this table only (libmpi does not link libfabric, so
// a direct call fails the link). Filled once, never unloaded.
#pragma once

#include <rdma/fabric.h>

#include "runtime/base/status.h"

namespace gpurun::transport::ofi {

struct OfiApi {
  decltype(&fi_getinfo) getinfo;
  decltype(&fi_freeinfo) freeinfo;
  decltype(&fi_dupinfo) dupinfo;  // fi_dupinfo(nullptr) is fi_allocinfo()
  decltype(&fi_fabric) fabric;
  decltype(&fi_strerror) strerror;
};

// Loads libfabric (GPURUN_OFI_LIBRARY) on first call; kUnsupported says why it cannot be.
Result<const OfiApi*> load_api();

// The loaded table; only after load_api() succeeded.
const OfiApi& api();

}  // namespace gpurun::transport::ofi

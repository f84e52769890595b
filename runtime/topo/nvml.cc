#include "runtime/topo/nvml.h"

#include <dlfcn.h>

#include <cstring>
#include <memory>

#include "runtime/base/log.h"

namespace gpurun::topo::nvml {
namespace {

// The part of nvml.h that gpurun uses (interface facts of NVML's ABI: names, values, layout).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr unsigned kNvmlMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr int kNvmlP2pCapsRead = 0;     // NVML_P2P_CAPS_INDEX_READ
constexpr int kNvmlLinkDeviceGpu = 0;   // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr unsigned kNvmlNameSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlUuidSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

struct nvmlPciInfo_t {  // nvmlPciInfo_st, as the _v3 calls fill it
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;
  unsigned pciSubSystemId;
  char busId[32];
};

struct Api {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*count)(unsigned*);
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t*);
  nvmlReturn_t (*pci_info)(nvmlDevice_t, nvmlPciInfo_t*);
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned);
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned);
  nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned, int*);
  nvmlReturn_t (*link_remote_pci)(nvmlDevice_t, unsigned, nvmlPciInfo_t*);
  nvmlReturn_t (*link_remote_type)(nvmlDevice_t, unsigned, int*);  // optional (NVML >= 11.4)
  nvmlReturn_t (*p2p_status)(nvmlDevice_t, nvmlDevice_t, int, int*);
};

struct LibraryCloser {
  void operator()(void* handle) const { dlclose(handle); }
};
using Library = std::unique_ptr<void, LibraryCloser>;

template <class F>
bool bind(void* library, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(library, symbol));
  return out != nullptr;
}

Status bind_api(void* library, const std::string& path, Api& api) {
  struct Entry {
    const char* symbol;
    bool ok;
  };
  const Entry entries[] = {
      {"nvmlInit_v2", bind(library, "nvmlInit_v2", api.init)},
      {"nvmlShutdown", bind(library, "nvmlShutdown", api.shutdown)},
      {"nvmlErrorString", bind(library, "nvmlErrorString", api.error_string)},
      {"nvmlDeviceGetCount_v2", bind(library, "nvmlDeviceGetCount_v2", api.count)},
      {"nvmlDeviceGetHandleByIndex_v2", bind(library, "nvmlDeviceGetHandleByIndex_v2", api.handle)},
      {"nvmlDeviceGetPciInfo_v3", bind(library, "nvmlDeviceGetPciInfo_v3", api.pci_info)},
      {"nvmlDeviceGetName", bind(library, "nvmlDeviceGetName", api.name)},
      {"nvmlDeviceGetUUID", bind(library, "nvmlDeviceGetUUID", api.uuid)},
      {"nvmlDeviceGetNvLinkState", bind(library, "nvmlDeviceGetNvLinkState", api.link_state)},
      {"nvmlDeviceGetNvLinkRemotePciInfo_v2",
       bind(library, "nvmlDeviceGetNvLinkRemotePciInfo_v2", api.link_remote_pci)},
      {"nvmlDeviceGetP2PStatus", bind(library, "nvmlDeviceGetP2PStatus", api.p2p_status)},
  };
  for (const Entry& entry : entries)
    if (!entry.ok)
      return Status(ErrorCode::kUnsupported, path + " has no " + entry.symbol + ": not NVML");
  bind(library, "nvmlDeviceGetNvLinkRemoteDeviceType", api.link_remote_type);
  return ok_status();
}

Status nvml_error(const Api& api, const char* call, nvmlReturn_t rc) {
  const char* text = api.error_string != nullptr ? api.error_string(rc) : nullptr;
  return Status(ErrorCode::kIo, std::string(call) + " failed: " + (text ? text : "unknown error") +
                                    " (" + std::to_string(rc) + ")");
}

P2pStatus p2p_from_nvml(int status) {
  switch (status) {
    case 0:
      return P2pStatus::kOk;
    case 1:
      return P2pStatus::kChipset;
    case 2:
      return P2pStatus::kGpu;
    case 3:
      return P2pStatus::kTopology;
    case 4:
      return P2pStatus::kRegkey;
    case 5:
      return P2pStatus::kUnsupported;
    default:
      return P2pStatus::kUnknown;
  }
}

// The bus id of `pci`, normalized; NVML gives "00000000:18:00.0".
std::string bus_id_of(const nvmlPciInfo_t& pci) {
  std::string raw(pci.busId, strnlen(pci.busId, sizeof pci.busId));
  return normalize_bus_id(raw).value_or(raw);
}

// The NVLink peers of `device`; a link to something that is not a GPU counts as a switch link.
std::vector<std::string> read_links(const Api& api, nvmlDevice_t device) {
  std::vector<std::string> peers;
  for (unsigned link = 0; link < kNvmlMaxLinks; ++link) {
    int active = 0;
    if (api.link_state(device, link, &active) != kNvmlSuccess || active == 0) continue;
    nvmlPciInfo_t remote{};
    if (api.link_remote_pci(device, link, &remote) != kNvmlSuccess) continue;
    int type = kNvmlLinkDeviceGpu;
    if (api.link_remote_type != nullptr &&
        api.link_remote_type(device, link, &type) != kNvmlSuccess)
      type = kNvmlLinkDeviceGpu;
    peers.push_back(type == kNvmlLinkDeviceGpu ? bus_id_of(remote) : kSwitchPeer);
  }
  return peers;
}

Result<Device> read_device(const Api& api, nvmlDevice_t handle) {
  nvmlPciInfo_t pci{};
  if (nvmlReturn_t rc = api.pci_info(handle, &pci); rc != kNvmlSuccess)
    return nvml_error(api, "nvmlDeviceGetPciInfo_v3", rc);
  Device device{.bus_id = bus_id_of(pci)};
  char text[kNvmlNameSize > kNvmlUuidSize ? kNvmlNameSize : kNvmlUuidSize] = {};
  if (api.name(handle, text, kNvmlNameSize) == kNvmlSuccess) device.name = text;
  if (api.uuid(handle, text, kNvmlUuidSize) == kNvmlSuccess) device.uuid = text;
  device.nvlink_peers = read_links(api, handle);
  return device;
}

Result<Report> read_report(const Api& api) {
  unsigned count = 0;
  if (nvmlReturn_t rc = api.count(&count); rc != kNvmlSuccess)
    return nvml_error(api, "nvmlDeviceGetCount_v2", rc);
  std::vector<nvmlDevice_t> handles(count);
  Report report;
  for (unsigned i = 0; i < count; ++i) {
    if (nvmlReturn_t rc = api.handle(i, &handles[i]); rc != kNvmlSuccess)
      return nvml_error(api, "nvmlDeviceGetHandleByIndex_v2", rc);
    GPURUN_ASSIGN_OR_RETURN(Device device, read_device(api, handles[i]));
    report.devices.push_back(std::move(device));
  }
  report.p2p.assign(std::size_t{count} * count, P2pStatus::kOk);
  for (unsigned a = 0; a < count; ++a) {
    for (unsigned b = 0; b < count; ++b) {
      if (a == b) continue;
      int status = 6;
      if (api.p2p_status(handles[a], handles[b], kNvmlP2pCapsRead, &status) != kNvmlSuccess)
        status = 6;
      report.p2p[a * count + b] = p2p_from_nvml(status);
    }
  }
  return report;
}

}  // namespace

Result<Report> query(const std::string& library) {
  Library handle(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (handle == nullptr) {
    const char* reason = dlerror();
    return Status(ErrorCode::kNotFound,
                  "cannot load " + library + ": " + (reason ? reason : "unknown error"));
  }
  Api api{};
  GPURUN_TRY(bind_api(handle.get(), library, api));
  if (nvmlReturn_t rc = api.init(); rc != kNvmlSuccess) return nvml_error(api, "nvmlInit_v2", rc);
  Result<Report> report = read_report(api);
  api.shutdown();
  if (report.ok())
    GPURUN_LOG(debug, topo, "nvml devices %zu from %s", report->devices.size(), library.c_str());
  return report;
}

}  // namespace gpurun::topo::nvml

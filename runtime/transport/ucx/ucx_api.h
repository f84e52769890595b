// UCX, loaded when the ucx transport is first created (dlopen of libucp), not when libmpi is:
// loading UCX installs its signal handlers and memory hooks in the process, which a job that
// never leaves its host should not get, and costs start-up time.
//
// The transport calls UCX through this table only (libmpi does not link UCX, so a direct call
// fails the link). The table is filled once and never unloaded.
#pragma once

#include <ucp/api/ucp.h>

#include "runtime/base/status.h"

namespace gpurun::transport::ucx {

struct UcxApi {
  decltype(&ucp_config_read) config_read;
  decltype(&ucp_config_modify) config_modify;
  decltype(&ucp_config_release) config_release;
  decltype(&ucp_init_version) init_version;
  decltype(&ucp_cleanup) cleanup;
  decltype(&ucp_context_query) context_query;
  decltype(&ucp_worker_create) worker_create;
  decltype(&ucp_worker_destroy) worker_destroy;
  decltype(&ucp_worker_query) worker_query;
  decltype(&ucp_worker_set_am_recv_handler) worker_set_am_recv_handler;
  decltype(&ucp_worker_get_address) worker_get_address;
  decltype(&ucp_worker_release_address) worker_release_address;
  decltype(&ucp_worker_progress) worker_progress;
  decltype(&ucp_worker_flush_nbx) worker_flush_nbx;
  decltype(&ucp_dt_create_generic) dt_create_generic;
  decltype(&ucp_dt_destroy) dt_destroy;
  decltype(&ucp_ep_create) ep_create;
  decltype(&ucp_ep_close_nbx) ep_close_nbx;
  decltype(&ucp_am_send_nbx) am_send_nbx;
  decltype(&ucp_am_recv_data_nbx) am_recv_data_nbx;
  decltype(&ucp_am_data_release) am_data_release;
  decltype(&ucp_tag_send_nbx) tag_send_nbx;
  decltype(&ucp_tag_recv_nbx) tag_recv_nbx;
  decltype(&ucp_tag_probe_nb) tag_probe_nb;
  decltype(&ucp_tag_msg_recv_nbx) tag_msg_recv_nbx;
  decltype(&ucp_request_cancel) request_cancel;
  decltype(&ucp_request_free) request_free;
  decltype(&ucp_request_check_status) request_check_status;
  decltype(&ucs_status_string) status_string;
};

// Loads UCX (GPURUN_UCX_LIBRARY) on first call; kUnsupported says why it cannot be.
Result<const UcxApi*> load_api();

// The loaded table; only after load_api() succeeded (every transport object holds one).
const UcxApi& api();

}  // namespace gpurun::transport::ucx

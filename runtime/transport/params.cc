#include "runtime/transport/params.h"

namespace gpurun::transport::params {
namespace {
param::Param<param::List> g_transports(
    "GPURUN_TRANSPORTS", param::List{},
    "Transports that may be used (self, shm, ucx, ofi): a list (\"shm,ofi\") or an exclusion "
    "(\"^shm\": ranks of one host talk over the network transport); empty: all. self always "
    "carries a rank's messages to itself.");
}  // namespace

const param::Param<param::List>& transports() { return g_transports; }

}  // namespace gpurun::transport::params

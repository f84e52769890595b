#include "api/net_wiring.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "gpurun/build_config.h"
#include "pml/params.h"
#include "runtime/base/log.h"
#include "runtime/transport/params.h"
#if GPURUN_HAVE_UCX
#include "runtime/transport/ucx/ucx_transport.h"
#endif
#if GPURUN_HAVE_OFI
#include "runtime/transport/ofi/ofi_transport.h"
#endif

namespace gpurun::api {
namespace {

// Every network transport of a rank is published under this one key, so that every rank
// finds a value for every other (an empty list when it has none).
constexpr char kNetAddressKey[] = "gpurun.net";
constexpr std::byte kNetAddressVersion{1};
constexpr const char* kKnownTransports[] = {"self", "shm", "cuda_ipc", "ucx", "ofi"};
constexpr const char* kNetworkTransports[] = {"ucx", "ofi"};  // in order of preference

// ---- the published value: a version byte, then [u8 name length][name][u32 length][address]

std::vector<std::byte> encode(const std::string& name, const std::vector<std::byte>& address) {
  std::vector<std::byte> out{kNetAddressVersion};
  if (name.empty()) return out;
  out.push_back(static_cast<std::byte>(name.size()));
  const auto* chars = reinterpret_cast<const std::byte*>(name.data());
  out.insert(out.end(), chars, chars + name.size());
  auto length = static_cast<std::uint32_t>(address.size());
  const auto* length_bytes = reinterpret_cast<const std::byte*>(&length);
  out.insert(out.end(), length_bytes, length_bytes + sizeof length);
  out.insert(out.end(), address.begin(), address.end());
  return out;
}

struct Entry {
  std::string name;
  std::vector<std::byte> address;
};

std::vector<Entry> decode(std::span<const std::byte> blob) {
  std::vector<Entry> out;
  if (blob.empty() || blob[0] != kNetAddressVersion) return out;
  std::size_t at = 1;
  while (at < blob.size()) {
    std::size_t name_length = static_cast<std::size_t>(blob[at++]);
    if (at + name_length + sizeof(std::uint32_t) > blob.size()) break;
    Entry e;
    e.name.assign(reinterpret_cast<const char*>(blob.data() + at), name_length);
    at += name_length;
    std::uint32_t length;
    std::memcpy(&length, blob.data() + at, sizeof length);
    at += sizeof length;
    if (at + length > blob.size()) break;
    e.address.assign(blob.begin() + static_cast<std::ptrdiff_t>(at),
                     blob.begin() + static_cast<std::ptrdiff_t>(at + length));
    at += length;
    out.push_back(std::move(e));
  }
  return out;
}

// ---- ranks that no transport reaches -----------------------------------------------------

// Every operation fails with the reason, logged once: a send to such a rank is an error the
// application sees, never a hang.
class UnreachableEndpoint final : public transport::Endpoint {
 public:
  explicit UnreachableEndpoint(std::string why) : why_(std::move(why)) {}
  Status send(const transport::PacketHeader&, const void*, std::size_t) override { return fail(); }
  Result<transport::BulkCookie> offer(const transport::Data&, transport::Completion) override {
    return fail();
  }
  Status pull(const transport::BulkCookie&, const transport::Data&,
              transport::Completion) override {
    return fail();
  }

 private:
  Status fail() {
    if (!logged_) GPURUN_LOG(error, transport, "%s", why_.c_str());
    logged_ = true;
    return Status(ErrorCode::kNotFound, why_);
  }
  std::string why_;
  bool logged_ = false;
};

// Owns the unreachable endpoints; moves nothing.
class Unreachable final : public transport::Transport {
 public:
  Unreachable() { caps_.name = "none"; }
  const transport::Caps& caps() const override { return caps_; }
  std::vector<std::byte> address() const override { return {}; }
  Result<transport::Endpoint*> connect(int, std::span<const std::byte>) override {
    return Status(ErrorCode::kUnsupported, "nothing connects through no transport");
  }
  int progress() override { return 0; }
  transport::Endpoint* add(std::string why) {
    endpoints_.push_back(std::make_unique<UnreachableEndpoint>(std::move(why)));
    return endpoints_.back().get();
  }

 private:
  transport::Caps caps_;
  std::vector<std::unique_ptr<UnreachableEndpoint>> endpoints_;
};

// ---- creating the network transport ------------------------------------------------------

// `one_host`: whether every peer is on this host (the transport then keeps to the loopback).
Result<std::unique_ptr<transport::Transport>> create_network(const std::string& name,
                                                             const bootstrap::JobInfo& job,
                                                             transport::PacketHandler handler,
                                                             bool one_host) {
#if GPURUN_HAVE_UCX
  if (name == "ucx") {
    transport::ucx::Config config{.rank = job.rank, .size = job.size, .loopback_only = one_host};
    GPURUN_ASSIGN_OR_RETURN(auto t, transport::ucx::UcxTransport::create(config, handler));
    return std::unique_ptr<transport::Transport>(std::move(t));
  }
#endif
#if GPURUN_HAVE_OFI
  if (name == "ofi") {
    transport::ofi::Config config{.rank = job.rank, .size = job.size, .loopback_only = one_host};
    GPURUN_ASSIGN_OR_RETURN(auto t, transport::ofi::OfiTransport::create(config, handler));
    return std::unique_ptr<transport::Transport>(std::move(t));
  }
#endif
  (void)job;
  (void)handler;
  (void)one_host;
  return Status(ErrorCode::kUnsupported, "not built (its library was missing at build time)");
}

bool is_local(const bootstrap::JobInfo& job, int rank) {
  return std::find(job.local_ranks.begin(), job.local_ranks.end(), rank) != job.local_ranks.end();
}

std::size_t eager_limit(const transport::Transport& t) {
  auto knob = pml::params::eager_limit().get();
  std::size_t limit = knob ? static_cast<std::size_t>(knob->bytes) : t.caps().max_packet;
  return std::min(limit, t.caps().max_packet);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : "; ") + item;
  return out;
}

// The endpoint to `peer` over the network transport, or why there is none.
Result<transport::Endpoint*> connect_peer(ProcessState& s, NetWiring& net, int peer) {
  if (net.transport == nullptr)
    return Status(ErrorCode::kNotFound,
                  "no network transport initialised here (" + join(net.failures) + ")");
  GPURUN_ASSIGN_OR_RETURN(auto blob, s.bootstrap->get(peer, kNetAddressKey));
  std::vector<Entry> entries = decode(blob);
  for (const Entry& e : entries)
    if (e.name == net.name) return net.transport->connect(peer, e.address);
  std::string has = entries.empty() ? "none" : entries.front().name;
  return Status(ErrorCode::kNotFound, "this rank has " + net.name + ", rank " +
                                          std::to_string(peer) + " has " + has +
                                          " (its log says why)");
}

// The first network transport, in order of preference, that `selection` allows and that starts:
// added to the pml and the process's transports. Null when none does; `failures` then says why
// of each ("ucx: <why>").
transport::Transport* start_first_network(ProcessState& s, const TransportSelection& selection,
                                          std::vector<std::string>& failures, bool one_host) {
  for (const char* name : kNetworkTransports) {
    if (!selection.allows(name)) {
      failures.push_back(std::string(name) + ": excluded by " + selection.setting());
      continue;
    }
    auto created = create_network(name, s.bootstrap->job(), s.pml->handler(), one_host);
    if (!created.ok()) {
      std::string why(created.status().message());
      GPURUN_LOG(info, transport, "%s unavailable: %s", name, why.c_str());
      failures.push_back(std::string(name) + ": " + why);
      continue;
    }
    transport::Transport* t = created.value().get();
    s.pml->add_transport(t);
    s.transports.push_back(std::move(created).value());
    return t;
  }
  return nullptr;
}

}  // namespace

TransportSelection::TransportSelection(const param::List& list) : list_(list) {
  for (const std::string& item : list_.items) {
    bool known = std::any_of(std::begin(kKnownTransports), std::end(kKnownTransports),
                             [&](const char* name) { return item == name; });
    if (!known)
      GPURUN_LOG(warn, init,
                 "GPURUN_TRANSPORTS names %s, which is no transport (known: self, "
                 "shm, cuda_ipc, ucx, ofi)",
                 item.c_str());
  }
  if (list_.exclude && !list_.selects("self"))
    GPURUN_LOG(warn, init,
               "GPURUN_TRANSPORTS: self cannot be excluded; it still carries a "
               "rank's messages to itself");
}

bool TransportSelection::allows(std::string_view name) const {
  return name == "self" || list_.selects(name);
}

std::string TransportSelection::setting() const {
  std::string out = "GPURUN_TRANSPORTS=";
  if (list_.exclude) out += "^";
  for (std::size_t i = 0; i < list_.items.size(); ++i) out += (i ? "," : "") + list_.items[i];
  return out;
}

Status start_network(ProcessState& s, const TransportSelection& selection, bool shm_used,
                     NetWiring& net) {
  const bootstrap::JobInfo& job = s.bootstrap->job();
  bool other_hosts = job.local_size < job.size;
  bool local_peers_need_it = job.local_size > 1 && !shm_used;
  if (!other_hosts && !local_peers_need_it) return ok_status();
  if (transport::Transport* t = start_first_network(s, selection, net.failures, !other_hosts)) {
    net.transport = t;
    net.name = t->caps().name;
  }
  std::vector<std::byte> blob =
      encode(net.name, net.transport ? net.transport->address() : std::vector<std::byte>{});
  GPURUN_TRY(s.bootstrap->put(kNetAddressKey, blob));
  net.published = true;
  return ok_status();
}

Status connect_network(ProcessState& s, const TransportSelection& selection, NetWiring& net,
                       std::vector<bool>& routed) {
  const bootstrap::JobInfo& job = s.bootstrap->job();
  Unreachable* unreachable = nullptr;
  for (int peer = 0; peer < job.size; ++peer) {
    if (routed[peer]) continue;
    routed[peer] = true;
    bool local = is_local(job, peer);
    Result<transport::Endpoint*> ep =
        net.published ? connect_peer(s, net, peer)
                      : Result<transport::Endpoint*>(Status(ErrorCode::kNotFound, "no address"));
    if (ep.ok()) {
      std::size_t limit = eager_limit(*net.transport);
      s.pml->set_route(peer, ep.value(), limit, net.transport->caps().name.c_str());
      GPURUN_LOG(info, transport, "peer %d via %s path %s (eager up to %zu bytes)", peer,
                 net.name.c_str(), local ? "host, shm not used" : "NET", limit);
      continue;
    }
    std::string why = "no transport reaches rank " + std::to_string(peer) + ": ";
    if (local) why += "shm is not used (" + selection.setting() + "), and ";
    why += std::string(ep.status().message());
    if (unreachable == nullptr) {
      auto owner = std::make_unique<Unreachable>();
      unreachable = owner.get();
      s.transports.push_back(std::move(owner));
    }
    GPURUN_LOG(warn, transport, "%s", why.c_str());
    s.pml->set_route(peer, unreachable->add(why), 0, "none");
    s.pml->mark_lost(peer, why);
  }
  return ok_status();
}

Result<transport::Transport*> network_for_other_jobs(ProcessState& s, bool other_hosts) {
  for (const auto& t : s.transports) {
    if (t->caps().reach != transport::Reach::kNetwork) continue;
    if (other_hosts && t->caps().loopback_only)
      return Status(ErrorCode::kUnsupported,
                    "this process's " + t->caps().name +
                        " keeps to the loopback: it started for processes of this host only "
                        "(set UCX_NET_DEVICES, or GPURUN_OFI_DOMAIN for ofi, to reach other "
                        "hosts from the start)");
    return t.get();
  }
  TransportSelection selection(transport::params::transports().get());
  std::vector<std::string> failures;
  const bootstrap::JobInfo& job = s.bootstrap->job();
  bool one_host = job.local_size == job.size && !other_hosts;
  if (transport::Transport* t = start_first_network(s, selection, failures, one_host)) {
    GPURUN_LOG(info, transport, "%s started to reach other jobs%s", t->caps().name.c_str(),
               one_host ? " on this host" : "");
    return t;
  }
  return Status(ErrorCode::kUnsupported,
                "no network transport to reach other jobs (" + join(failures) + ")");
}

std::size_t network_eager_limit(const transport::Transport& t) { return eager_limit(t); }

bool uses_network(const ProcessState& s) {
  return std::any_of(s.transports.begin(), s.transports.end(),
                     [](const auto& t) { return t->caps().reach == transport::Reach::kNetwork; });
}

}  // namespace gpurun::api

#include "runtime/transport/ofi/ofi_info.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <vector>

#include "runtime/transport/ofi/ofi_api.h"

namespace gpurun::transport::ofi {
namespace {

// The API version gpurun is written against: everything it uses exists since 1.9.
constexpr std::uint32_t kApiVersion = FI_VERSION(1, 9);

std::vector<std::string> layers(const std::string& provider) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= provider.size()) {
    std::size_t end = provider.find(';', at);
    if (end == std::string::npos) end = provider.size();
    out.push_back(provider.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

bool names(const std::string& provider, const std::string& wanted) {
  if (provider == wanted) return true;
  for (const std::string& layer : layers(provider))
    if (layer == wanted) return true;
  return false;
}

bool usable_by_default(const std::string& provider) {
  return !names(provider, "sockets") && layers(provider).front() != "shm";
}

// The domain of `provider` to use, or the reason there is none.
std::optional<std::size_t> choose_domain(std::span<const Offer> offers, const std::string& provider,
                                         const Preference& pref) {
  auto pick = [&](auto&& fits) -> std::optional<std::size_t> {
    std::optional<std::size_t> any;
    for (std::size_t i = 0; i < offers.size(); ++i) {
      if (offers[i].provider != provider || !fits(offers[i])) continue;
      if (offers[i].ipv4) return i;
      if (!any) any = i;
    }
    return any;
  };
  if (pref.domain) return pick([&](const Offer& o) { return o.domain == *pref.domain; });
  if (pref.loopback_only) return pick([](const Offer& o) { return o.loopback; });
  if (!pref.nic.empty()) {
    if (auto nic = pick([&](const Offer& o) { return o.domain == pref.nic; })) return nic;
  }
  return pick([](const Offer& o) { return !o.loopback; });
}

std::string describe_offers(std::span<const Offer> offers) {
  std::string out;
  for (const Offer& o : offers) {
    std::string item = o.provider + "/" + o.domain;
    if (out.find(item) != std::string::npos) continue;
    out += (out.empty() ? "" : ", ") + item;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

Offer offer_of(const fi_info* info) {
  Offer o;
  o.provider =
      info->fabric_attr && info->fabric_attr->prov_name ? info->fabric_attr->prov_name : "";
  o.domain = info->domain_attr && info->domain_attr->name ? info->domain_attr->name : "";
  if (info->addr_format == FI_SOCKADDR_IN && info->src_addr != nullptr) {
    const auto* in = static_cast<const sockaddr_in*>(info->src_addr);
    o.ipv4 = true;
    o.loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  } else if (info->addr_format == FI_SOCKADDR_IN6 && info->src_addr != nullptr) {
    const auto* in6 = static_cast<const sockaddr_in6*>(info->src_addr);
    o.loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
  }
  return o;
}

Result<std::size_t> choose_offer(std::span<const Offer> offers, const Preference& pref) {
  std::vector<std::string> tried;
  for (const Offer& o : offers) {
    bool wanted = pref.provider ? names(o.provider, *pref.provider) : usable_by_default(o.provider);
    if (!wanted) continue;
    bool seen = false;
    for (const std::string& t : tried) seen = seen || t == o.provider;
    if (seen) continue;
    tried.push_back(o.provider);
    if (auto index = choose_domain(offers, o.provider, pref)) return *index;
  }
  std::string why = pref.provider ? "no provider named " + *pref.provider
                                  : "no provider other than sockets and shm";
  if (!tried.empty()) {
    why = pref.domain          ? "no domain " + *pref.domain
          : pref.loopback_only ? "no loopback domain (the job is on one host)"
                               : "only loopback domains (the job spans hosts)";
  }
  return Status(ErrorCode::kNotFound,
                "ofi: " + why + " among what fi_getinfo offers: " + describe_offers(offers) +
                    " (see GPURUN_OFI_PROVIDER and GPURUN_OFI_DOMAIN)");
}

Result<fi_info*> get_info(const Preference& pref) {
  GPURUN_TRY(load_api());
  fi_info* hints = api().dupinfo(nullptr);
  if (hints == nullptr) return Status(ErrorCode::kNoMemory, "fi_allocinfo");
  hints->caps = FI_TAGGED;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->ep_attr->type = FI_EP_RDM;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->domain_attr->mr_mode = FI_MR_LOCAL;
  hints->tx_attr->msg_order = FI_ORDER_SAS;
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  fi_info* list = nullptr;
  int rc = api().getinfo(kApiVersion, nullptr, nullptr, 0, hints, &list);
  api().freeinfo(hints);
  if (rc != 0)
    return Status(
        ErrorCode::kNotFound,
        std::string("ofi: fi_getinfo found no reliable tagged provider: ") + api().strerror(-rc));
  std::vector<Offer> offers;
  std::vector<fi_info*> infos;
  for (fi_info* i = list; i != nullptr; i = i->next) {
    offers.push_back(offer_of(i));
    infos.push_back(i);
  }
  Result<std::size_t> chosen = choose_offer(offers, pref);
  fi_info* out = chosen.ok() ? api().dupinfo(infos[*chosen]) : nullptr;
  api().freeinfo(list);
  if (!chosen.ok()) return chosen.status();
  if (out == nullptr) return Status(ErrorCode::kNoMemory, "fi_dupinfo");
  return out;
}

}  // namespace gpurun::transport::ofi

// RemoteHosts: the messages of a running job (rank output and events, fences, direct modex,
// signals and stdin) and the main loop's hooks.
#include <pmix_common.h>

#include <algorithm>

#include "launcher/pmix_server.h"
#include "launcher/remote_host.h"
#include "launcher/stdin_fan.h"
#include "runtime/base/log.h"

namespace gpurun::launcher {
namespace {

// Poll tags: the kind in the top byte, an index below.
enum class Tag : std::uint32_t { kListener = 1, kPending, kAgentOut, kAgentErr, kLink };

std::uint32_t tag(Tag kind, std::size_t index) {
  return (static_cast<std::uint32_t>(kind) << 24) | static_cast<std::uint32_t>(index);
}

}  // namespace

void RemoteHosts::poll_set(std::vector<pollfd>& fds, std::vector<std::uint32_t>& tags) const {
  auto add = [&](int fd, short events, std::uint32_t t) {
    fds.push_back(pollfd{.fd = fd, .events = events, .revents = 0});
    tags.push_back(t);
  };
  if (listener_ && starting_)
    for (std::size_t i = 0; i < listener_->fds().size(); ++i)
      add(listener_->fds()[i], POLLIN, tag(Tag::kListener, i));
  for (std::size_t i = 0; i < pending_.size(); ++i)
    add(pending_[i]->link->fd(), POLLIN, tag(Tag::kPending, i));
  for (std::size_t n = 0; n < hosts_.size(); ++n) {
    const Host* host = hosts_[n].get();
    if (host == nullptr) continue;
    if (host->agent_out >= 0) add(host->agent_out, POLLIN, tag(Tag::kAgentOut, n));
    if (host->agent_err >= 0) add(host->agent_err, POLLIN, tag(Tag::kAgentErr, n));
    if (host->link)
      add(host->link->fd(), static_cast<short>(POLLIN | (host->link->wants_write() ? POLLOUT : 0)),
          tag(Tag::kLink, n));
  }
}

void RemoteHosts::on_ready(std::uint32_t t) {
  auto kind = static_cast<Tag>(t >> 24);
  std::size_t index = t & 0xffffff;
  switch (kind) {
    case Tag::kListener:
      accept_from(listener_->fds()[index]);
      break;
    case Tag::kPending:
      if (index < pending_.size()) on_pending(index);
      break;
    case Tag::kAgentOut:
    case Tag::kAgentErr:
      on_agent_output(*hosts_[index], kind == Tag::kAgentErr);
      break;
    case Tag::kLink:
      on_link(*hosts_[index]);
      break;
  }
}

void RemoteHosts::on_link(Host& host) {
  if (!host.link) return;
  if (!host.link->flush()) return on_link_lost(host, host.link->error());
  bool open = host.link->receive();
  try {
    while (host.link) {
      std::optional<wire::Message> message = host.link->next();
      if (!message) break;
      dispatch(host, *message);
    }
  } catch (const wire::ProtocolError& e) {
    return fail_host(host, std::string("its daemon sent a malformed message (") + e.what() + ")");
  }
  if (!open && host.link) on_link_lost(host, host.link->error());
}

bool RemoteHosts::dispatch_rank_message(Host& host, const wire::Message& message) {
  wire::Decoder d(message.body);
  const std::vector<int>& ranks = spec_.map.nodes[static_cast<std::size_t>(host.node)].ranks;
  auto own = [&](int rank) {
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end())
      throw wire::ProtocolError("rank " + std::to_string(rank) + " is not on this host");
    return rank;
  };
  if (message.type == wire::Type::kSpawned) {
    std::vector<int> pids = d.ints();
    for (std::size_t i = 0; i < pids.size() && i < ranks.size() && sink_; ++i)
      sink_->remote_spawned(ranks[i], pids[i]);
  } else if (message.type == wire::Type::kOutput) {
    int rank = own(d.i32());
    bool is_stderr = d.u32() == 2;
    std::string data = d.str();
    if (sink_) sink_->remote_output(rank, is_stderr, data);
  } else if (message.type == wire::Type::kOutputEnd) {
    int rank = own(d.i32());
    if (sink_) sink_->remote_output_end(rank, d.u32() == 2);
  } else if (message.type == wire::Type::kRankEvent) {
    RankEvent event{.kind = static_cast<RankEvent::Kind>(d.u32())};
    event.rank = own(d.i32());
    event.code = d.i32();
    event.message = d.str();
    if (event.kind != RankEvent::Kind::kConnected && event.kind != RankEvent::Kind::kFinalized &&
        event.kind != RankEvent::Kind::kAbort)
      throw wire::ProtocolError("bad rank event");
    if (sink_) sink_->remote_event(std::move(event));
  } else if (message.type == wire::Type::kRankExit) {
    int rank = own(d.i32());
    int status = d.i32();
    if (sink_) sink_->remote_exit(rank, status);
  } else {
    return false;
  }
  return true;
}

void RemoteHosts::dispatch(Host& host, const wire::Message& message) {
  if (dispatch_rank_message(host, message)) return;
  wire::Decoder d(message.body);
  switch (message.type) {
    case wire::Type::kReady:
      host.jobdir = d.str();
      host.token = d.str();
      host.ready = true;
      break;
    case wire::Type::kFailure:
      fail_host(host, d.str());
      break;
    case wire::Type::kFence: {
      std::uint32_t sequence = d.u32();
      std::vector<int> participants = d.ints();
      fence(host.node, std::move(participants), sequence, d.str());
      break;
    }
    case wire::Type::kModexRequest: {
      std::uint32_t origin_id = d.u32();
      int rank = d.i32();
      std::uint32_t id = next_modex_++;
      modex_[id] = ModexRoute{.origin = host.node, .origin_id = origin_id};
      route_modex(id, rank);
      break;
    }
    case wire::Type::kModexReply: {
      std::uint32_t id = d.u32();
      int status = d.i32();
      deliver_modex(id, status, d.str());
      break;
    }
    case wire::Type::kBye:
      host.bye = true;
      host.link.reset();
      host.settle_deadline = Clock::now() + settings_.kill_grace + std::chrono::seconds(1);
      break;
    default:
      throw wire::ProtocolError("unexpected message " +
                                std::to_string(static_cast<std::uint32_t>(message.type)));
  }
}

void RemoteHosts::on_local_event(RankEvent& event) {
  switch (event.kind) {
    case RankEvent::Kind::kFence:
      local_fences_[{event.participants, event.sequence}] = std::move(event.reply);
      fence(local_node_, std::move(event.participants), event.sequence, std::move(event.data));
      break;
    case RankEvent::Kind::kModexAsk: {
      std::uint32_t id = next_modex_++;
      modex_[id] = ModexRoute{.origin = local_node_, .reply = std::move(event.reply)};
      route_modex(id, event.rank);
      break;
    }
    case RankEvent::Kind::kModexServed:
      deliver_modex(event.sequence, event.code, event.data);
      break;
    default:
      break;
  }
}

void RemoteHosts::fence(int node, std::vector<int> participants, std::uint32_t sequence,
                        std::string data) {
  auto done = fences_.contribute(node, participants, sequence, std::move(data));
  if (!done) return;
  for (int n : done->nodes) {
    if (n == local_node_) {
      auto it = local_fences_.find({done->participants, done->sequence});
      if (it == local_fences_.end()) continue;
      it->second(PMIX_SUCCESS, done->data);
      local_fences_.erase(it);
    } else if (Host* host = hosts_[static_cast<std::size_t>(n)].get(); host && host->link) {
      host->link->send(wire::Type::kFenceDone, wire::Encoder()
                                                   .u32(done->sequence)
                                                   .ints(done->participants)
                                                   .i32(PMIX_SUCCESS)
                                                   .str(done->data)
                                                   .take());
    }
  }
}

void RemoteHosts::route_modex(std::uint32_t id, int rank) {
  if (rank < 0 || rank >= spec_.map.size()) return deliver_modex(id, PMIX_ERR_NOT_FOUND, "");
  int node = spec_.map.node_of[static_cast<std::size_t>(rank)];
  GPURUN_LOG(debug, launcher, "direct modex %u: rank %d's data from node %d", id, rank, node);
  if (node == local_node_) {
    if (local_server_ == nullptr) return deliver_modex(id, PMIX_ERR_NOT_FOUND, "");
    EventQueue* events = &events_;
    local_server_->request_modex(rank, [events, id](int status, std::string data) {
      events->push(RankEvent{.kind = RankEvent::Kind::kModexServed,
                             .code = status,
                             .sequence = id,
                             .data = std::move(data)});
    });
    return;
  }
  Host* host = hosts_[static_cast<std::size_t>(node)].get();
  if (host == nullptr || !host->link) return deliver_modex(id, PMIX_ERR_UNREACH, "");
  host->link->send(wire::Type::kModexRequest, wire::Encoder().u32(id).i32(rank).take());
}

void RemoteHosts::deliver_modex(std::uint32_t id, int status, const std::string& data) {
  auto it = modex_.find(id);
  if (it == modex_.end()) return;
  ModexRoute route = std::move(it->second);
  modex_.erase(it);
  if (route.origin == local_node_) {
    if (route.reply) route.reply(status, data);
    return;
  }
  Host* host = hosts_[static_cast<std::size_t>(route.origin)].get();
  if (host != nullptr && host->link)
    host->link->send(wire::Type::kModexReply,
                     wire::Encoder().u32(route.origin_id).i32(status).str(data).take());
}

void RemoteHosts::start_ranks() {
  for (auto& host : hosts_)
    if (host && host->link) host->link->send(wire::Type::kStart, "");
}

void RemoteHosts::kill(int signal) {
  for (auto& host : hosts_)
    if (host && host->link && !host->bye)
      host->link->send(wire::Type::kKill, wire::Encoder().i32(signal).take());
}

void RemoteHosts::signal(int signal) {
  for (auto& host : hosts_) {
    if (!host || !host->link || host->bye) continue;
    host->link->send(wire::Type::kSignal, wire::Encoder().i32(signal).take());
    host->link->flush_blocking(100);
  }
}

bool RemoteHosts::stdin_remote() const {
  for (int rank = 0; rank < spec_.map.size(); ++rank)
    if (reads_stdin(spec_.stdin_rank, rank) &&
        spec_.map.node_of[static_cast<std::size_t>(rank)] != local_node_)
      return true;
  return false;
}

// Calls f(host) for each remote host with a rank that reads gpurun's stdin.
template <typename F>
void RemoteHosts::each_stdin_host(F f) const {
  for (std::size_t n = 0; n < hosts_.size(); ++n) {
    if (static_cast<int>(n) == local_node_ || hosts_[n] == nullptr) continue;
    const std::vector<int>& ranks = spec_.map.nodes[n].ranks;
    if (std::any_of(ranks.begin(), ranks.end(),
                    [&](int rank) { return reads_stdin(spec_.stdin_rank, rank); }))
      f(*hosts_[n]);
  }
}

void RemoteHosts::send_stdin(std::string_view data) {
  std::string body = wire::Encoder().str(data).take();
  each_stdin_host([&](const Host& host) {
    if (host.link) host.link->send(wire::Type::kStdin, body);
  });
}

std::size_t RemoteHosts::stdin_backlog() const {
  std::size_t most = 0;
  each_stdin_host([&](const Host& host) {
    if (host.link) most = std::max(most, host.link->queued());
  });
  return most;
}

}  // namespace gpurun::launcher

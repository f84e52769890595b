#include "api/connect.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/checks.h"
#include "api/comm_build.h"
#include "api/net_wiring.h"
#include "api/state.h"
#include "runtime/base/log.h"
#include "runtime/core/context_ids.h"

namespace gpurun::api {
namespace {

using Bytes = std::vector<std::byte>;

// ---- byte strings: little helpers to write and read the handshake's messages ---------------

void put_u32(Bytes& out, std::uint32_t v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}
void put_bytes(Bytes& out, std::span<const std::byte> bytes) {
  put_u32(out, static_cast<std::uint32_t>(bytes.size()));
  out.insert(out.end(), bytes.begin(), bytes.end());
}
void put_text(Bytes& out, std::string_view text) { put_bytes(out, std::as_bytes(std::span(text))); }

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return at_ == in_.size(); }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    if (!take(sizeof v)) return 0;
    std::memcpy(&v, in_.data() + at_ - sizeof v, sizeof v);
    return v;
  }
  std::span<const std::byte> bytes() {
    std::uint32_t n = u32();
    if (!take(n)) return {};
    return in_.subspan(at_ - n, n);
  }
  std::string text() {
    auto b = bytes();
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }

 private:
  bool take(std::size_t n) {
    if (!ok_ || in_.size() - at_ < n) return ok_ = false;
    at_ += n;
    return true;
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

// ---- cards: what a process tells the other group about itself ------------------------------

struct Card {
  std::string job;        // job_key()
  int rank = 0;           // in that job
  std::string transport;  // its network transport's name; empty: it has none, ...
  Bytes address;          // ... and this says why
};

void put_card(Bytes& out, const Card& c) {
  put_text(out, c.job);
  put_u32(out, static_cast<std::uint32_t>(c.rank));
  put_text(out, c.transport);
  put_bytes(out, c.address);
}

// The cards of `blob` ([count][card]...); false when it is malformed.
bool read_cards(std::span<const std::byte> blob, std::vector<Card>* cards) {
  Reader r(blob);
  std::uint32_t n = r.u32();
  cards->clear();
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    Card c;
    c.job = r.text();
    c.rank = static_cast<int>(r.u32());
    c.transport = r.text();
    auto address = r.bytes();
    c.address.assign(address.begin(), address.end());
    cards->push_back(std::move(c));
  }
  return r.ok() && r.done();
}

Card my_card(Result<transport::Transport*>& net) {
  Card c{job_key(), world_rank(), "", {}};
  if (net.ok()) {
    c.transport = (*net)->caps().name;
    c.address = (*net)->address();
  } else {
    std::string why(net.status().message());
    c.address = Bytes(reinterpret_cast<const std::byte*>(why.data()),
                      reinterpret_cast<const std::byte*>(why.data() + why.size()));
  }
  return c;
}

// The first member without a network transport, as a message; empty when all have one.
std::string missing_transport(const std::vector<Card>& cards, const char* group) {
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (!cards[i].transport.empty()) continue;
    return "rank " + std::to_string(i) + " of the " + group + " group has no network transport: " +
           std::string(reinterpret_cast<const char*>(cards[i].address.data()),
                       cards[i].address.size());
  }
  return {};
}

// ---- the numbers of other jobs' processes -------------------------------------------------

std::map<std::pair<std::string, int>, int>& other_processes() {
  static std::map<std::pair<std::string, int>, int> table;
  return table;
}

// This process's number for the process a card describes.
int number_of(const Card& c) {
  if (c.job == job_key()) return c.rank;
  auto& table = other_processes();
  auto [it, added] = table.emplace(std::make_pair(c.job, c.rank), 0);
  if (added) it->second = state().bootstrap->job().size + static_cast<int>(table.size()) - 1;
  return it->second;
}

// ---- collective helpers over the group's communicator --------------------------------------

// Every member's bytes at `root` as [count][bytes]...; empty elsewhere.
Bytes gather_bytes(const Bytes& mine, int root, MPI_Comm comm, int rank, int size) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(lengths.size());
  PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm);
  int total = 0;
  for (int i = 0; i < size; ++i)
    offsets[static_cast<std::size_t>(i)] =
        std::exchange(total, total + lengths[static_cast<std::size_t>(i)]);
  Bytes all(rank == root ? static_cast<std::size_t>(total) : 0);
  PMPI_Gatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE,
               root, comm);
  if (rank != root) return {};
  Bytes out;
  put_u32(out, static_cast<std::uint32_t>(size));
  for (int i = 0; i < size; ++i) {
    auto at = all.begin() + offsets[static_cast<std::size_t>(i)];
    out.insert(out.end(), at, at + lengths[static_cast<std::size_t>(i)]);
  }
  return out;
}

// The root's bytes at every member.
void bcast_bytes(Bytes& bytes, int root, MPI_Comm comm) {
  auto length = static_cast<std::uint64_t>(bytes.size());
  PMPI_Bcast(&length, 1, MPI_UINT64_T, root, comm);
  bytes.resize(length);
  PMPI_Bcast(bytes.data(), static_cast<int>(length), MPI_BYTE, root, comm);
}

// ---- the roots' conversation ------------------------------------------------------------

// One call's meeting: this group's communicator and root, and the root's channel.
struct Meeting {
  MPI_Comm comm;
  int root, rank, size;
  ConnectSide side;
  std::unique_ptr<bootstrap::Channel> channel;  // at the root, once open
  std::string failure;                          // the first failure either group met

  // The roots trade `mine` (meaningful at the root only) and each spreads what came to its
  // group, with the failure so far: every member of both groups returns the other group's
  // payload and knows the same failure.
  Bytes step(const Bytes& mine) {
    Bytes spread;
    if (rank == root) {
      Bytes theirs = trade(mine);
      put_text(spread, failure);
      spread.insert(spread.end(), theirs.begin(), theirs.end());
    }
    bcast_bytes(spread, root, comm);
    Reader r(spread);
    failure = r.text();
    return Bytes(
        spread.begin() + static_cast<std::ptrdiff_t>(sizeof(std::uint32_t) + failure.size()),
        spread.end());
  }

 private:
  // [failure][payload] each way, the accepting side first (so that two large messages never
  // wait for each other in the socket buffers).
  Bytes trade(const Bytes& payload) {
    if (channel == nullptr) return {};
    auto idle = [] { idle_turn(); };
    Bytes out;
    put_text(out, failure);
    out.insert(out.end(), payload.begin(), payload.end());
    Result<Bytes> in = Bytes{};
    Status sent;
    if (side == ConnectSide::kAccept) {
      sent = channel->send(out);
      if (sent.ok()) in = channel->receive(idle);
    } else {
      in = channel->receive(idle);
      if (in.ok()) sent = channel->send(out);
    }
    if (!sent.ok() || !in.ok()) {
      if (failure.empty())
        failure =
            "the other group's root: " + std::string((sent.ok() ? in.status() : sent).message());
      channel.reset();
      return {};
    }
    Reader r(*in);
    std::string theirs = r.text();
    if (!r.ok()) theirs = "its root sent a malformed message";
    if (failure.empty() && !theirs.empty()) failure = "the other group: " + theirs;
    if (!r.ok()) return {};
    return Bytes(in->begin() + static_cast<std::ptrdiff_t>(sizeof(std::uint32_t) + theirs.size()),
                 in->end());
  }
};

// Opens endpoints to the other group's processes of other jobs, numbered `ids` here, which
// number this process as `their_ids` says. Returns why one could not be reached, or empty.
std::string open_routes(const std::vector<Card>& cards, const std::vector<int>& ids,
                        const std::vector<int>& their_ids, Result<transport::Transport*>& net) {
  const int job_size = state().bootstrap->job().size;
  for (std::size_t k = 0; k < cards.size(); ++k) {
    if (ids[k] < job_size) continue;  // of this job: routed since MPI_Init
    if (!net.ok()) return std::string(net.status().message());
    transport::Transport& t = **net;
    if (cards[k].transport != t.caps().name)
      return "rank " + std::to_string(k) + " of the other group has " + cards[k].transport +
             ", this process " + t.caps().name;
    Result<transport::Endpoint*> ep = t.connect_other_job(ids[k], their_ids[k], cards[k].address);
    if (!ep.ok()) return std::string(ep.status().message());
    state().pml->set_route(ids[k], *ep, network_eager_limit(t), t.caps().name.c_str());
    GPURUN_LOG(info, transport, "process %d of job %s (rank %d there) via %s", ids[k],
               cards[k].job.c_str(), cards[k].rank, t.caps().name.c_str());
  }
  return {};
}

// Each member's numbers for the other group's processes, traded: returns, for each process of
// the other group, its number for this process.
std::vector<int> trade_numbers(Meeting& m, const std::vector<int>& ids) {
  const auto remote = static_cast<int>(ids.size());
  std::vector<int> matrix(m.rank == m.root ? static_cast<std::size_t>(m.size) * ids.size() : 0);
  PMPI_Gather(ids.data(), remote, MPI_INT, matrix.data(), remote, MPI_INT, m.root, m.comm);
  Bytes mine(reinterpret_cast<const std::byte*>(matrix.data()),
             reinterpret_cast<const std::byte*>(matrix.data() + matrix.size()));
  Bytes theirs = m.step(mine);  // row per process of the other group, a column per member here
  std::vector<int> out(ids.size(), -1);
  if (!m.failure.empty()) return out;
  if (theirs.size() != sizeof(int) * ids.size() * static_cast<std::size_t>(m.size)) {
    m.failure = "the other group's numbers do not fit its size";
    return out;
  }
  for (std::size_t k = 0; k < ids.size(); ++k)
    std::memcpy(&out[k], theirs.data() + sizeof(int) * (k * m.size + m.rank), sizeof(int));
  return out;
}

// Installs the bridge: a communicator over both groups, the accepting one first.
Result<MPI_Comm> install_bridge(ConnectSide side, const core::Group& local,
                                const std::vector<int>& remote) {
  std::vector<int> members = local.job_ranks();
  if (side == ConnectSide::kAccept)
    members.insert(members.end(), remote.begin(), remote.end());
  else
    members.insert(members.begin(), remote.begin(), remote.end());
  CommSpec spec;
  spec.group = core::Group::of(std::move(members));
  spec.errhandler = ErrhandlerRef(MPI_ERRORS_RETURN);
  state().pml->reuse_context_id(core::ContextIds::kBridgeId);
  return install(std::move(spec), core::ContextIds::kBridgeId);
}

// Whether every member of both groups got this far: each group's and, then the roots'.
void agree_all_well(Meeting& m, const std::string& mine) {
  int ok = mine.empty() ? 1 : 0, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, m.comm);
  if (m.failure.empty() && all == 0)
    m.failure = mine.empty() ? "a process of this group could not reach the other group" : mine;
  m.step({});
}

// With the bridge up: the intercommunicator, its context id agreed over the bridge.
int make_intercomm(const Call& call, Meeting& m, CommEntry& entry, MPI_Comm bridge,
                   const std::vector<int>& remote, MPI_Comm* newcomm) {
  CommSpec spec;
  spec.group = entry.comm->shared_group();
  spec.remote = core::Group::of(remote);
  spec.errhandler = entry.errhandler;
  if (int rc = PMPI_Comm_dup(m.comm, &spec.local); rc != MPI_SUCCESS) return rc;
  MPI_Comm dup = spec.local;
  CommEntry& b = *find_comm(bridge);
  CommSpec span;
  span.group = b.comm->shared_group();
  span.errhandler = entry.errhandler;
  MPI_Comm made = MPI_COMM_NULL;
  int rc = create_over(call, bridge, b, std::move(spec), &made);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(&dup);
    return rc;
  }
  rc = create_over(call, bridge, b, std::move(span), &find_comm(made)->span);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(&made);
    return rc;
  }
  *newcomm = made;
  return MPI_SUCCESS;
}

int fail(const Call& call, const Meeting& m, int error_class) {
  return raise(call, m.comm, error_class, "%s", m.failure.c_str());
}

}  // namespace

std::string job_key() {
  const bootstrap::JobInfo& job = state().bootstrap->job();
  if (job.launcher == bootstrap::Launcher::kSingleton) return job.nspace + "/" + job.job_token;
  return job.nspace + "@" + job.leader_host;
}

int check_group_args(const Call& call, MPI_Comm comm, int root, MPI_Comm* newcomm) {
  GPURUN_CHECK_COMM(entry, comm);
  if (entry->comm->inter())
    return raise(call, comm, MPI_ERR_COMM, "argument comm is an intercommunicator");
  if (root < 0 || root >= entry->comm->size())
    return raise(call, comm, MPI_ERR_ROOT, "argument root %d is not a rank of comm (size %d)", root,
                 entry->comm->size());
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  return MPI_SUCCESS;
}

Result<std::unique_ptr<bootstrap::Channel>> connect_to_port(const char* port_name) {
  if (port_name == nullptr)
    return Status(ErrorCode::kInvalidArgument, "argument port_name is a null pointer at the root");
  GPURUN_ASSIGN_OR_RETURN(bootstrap::PortName name, bootstrap::parse_port_name(port_name));
  return bootstrap::connect_port(name);
}

void idle_turn() {
  state().pml->progress();
  if (g_thread_multiple) let_other_threads_in();
}

bool reaches_other_hosts(const char* port_name) {
  if (port_name == nullptr) return false;
  Result<bootstrap::PortName> name = bootstrap::parse_port_name(port_name);
  return name.ok() && !name.value().address.starts_with("127.");
}

bool has_other_jobs(const core::Group& group) {
  if (other_processes().empty()) [[likely]]
    return false;
  const int job_size = state().bootstrap->job().size;
  for (int i = 0; i < group.size(); ++i)
    if (group.job_rank(i) >= job_size) return true;
  return false;
}

int connect_groups(const Call& call, MPI_Comm comm, int root, ConnectSide side,
                   const OpenChannel& open, MPI_Comm* newcomm, int error_class, bool other_hosts) {
  CommEntry& entry = *find_comm(comm);
  Meeting m{comm, root, entry.comm->rank(), entry.comm->size(), side, nullptr, {}};
  Bytes far{other_hosts ? std::byte{1} : std::byte{0}};
  bcast_bytes(far, root, comm);
  Result<transport::Transport*> net =
      network_for_other_jobs(state(), far.size() == 1 && far[0] == std::byte{1});
  Bytes card;
  put_card(card, my_card(net));
  Bytes cards = gather_bytes(card, root, comm, m.rank, m.size);
  if (m.rank == root) {
    std::vector<Card> mine;
    read_cards(cards, &mine);
    m.failure = missing_transport(mine, side == ConnectSide::kAccept ? "accepting" : "connecting");
    auto opened = open();
    if (opened.ok())
      m.channel = std::move(opened).value();
    else if (m.failure.empty())
      m.failure = std::string(opened.status().message());
  }
  std::vector<Card> theirs;
  Bytes remote_cards = m.step(cards);
  if (m.failure.empty() && !read_cards(remote_cards, &theirs))
    m.failure = "the other group's root sent malformed cards";
  if (!m.failure.empty()) return fail(call, m, error_class);
  std::vector<int> ids;
  for (const Card& c : theirs) ids.push_back(number_of(c));
  std::vector<int> their_ids = trade_numbers(m, ids);
  if (!m.failure.empty()) return fail(call, m, error_class);
  std::string mine = open_routes(theirs, ids, their_ids, net);
  Result<MPI_Comm> bridge = Status(ErrorCode::kInternal, "no bridge");
  if (mine.empty()) {
    bridge = install_bridge(side, *entry.comm->shared_group(), ids);
    if (!bridge.ok()) mine = std::string(bridge.status().message());
  }
  agree_all_well(m, mine);  // from here on, both groups' routes and bridges are in place
  int rc = m.failure.empty() ? make_intercomm(call, m, entry, *bridge, ids, newcomm)
                             : fail(call, m, error_class);
  if (bridge.ok()) {
    MPI_Comm b = *bridge;
    PMPI_Comm_free(&b);
  }
  return rc;
}

}  // namespace gpurun::api

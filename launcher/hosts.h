// The hosts of a job: -H lists and hostfiles, and which of them are this host.
//
// Syntax (the peers'): -H "a:4,b,c:2" (a host without slots has one); a hostfile has one host a
// line, "host slots=N [max_slots=M]" as Open MPI writes it or "host:N" as MPICH does, '#' starts
// a comment and
// blank lines are skipped. A host named twice gets the sum of its slots. Host names are letters,
// digits, '.', '-' and '_' (they end up in the launch agent's command line).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpurun::launcher {

struct HostSpec {
  std::string name;
  int slots = 1;
  int max_slots = 0;   // Open MPI's max_slots=N: never more ranks, oversubscribed or not (0: none)
  bool local = false;  // this host: its ranks run under gpurun itself, without an agent
};

// One -H value. Throws UsageError naming the entry.
std::vector<HostSpec> parse_host_list(std::string_view text);
// A hostfile's text; errors (UsageError) read "<file>:<line>: <what>".
std::vector<HostSpec> parse_hostfile_text(std::string_view text, const std::string& file);
// Reads and parses a hostfile (UsageError when it cannot be read or is empty).
std::vector<HostSpec> read_hostfile(const std::string& path);

// Sets `local` on each host, then merges hosts named twice and every entry naming this host
// into one (slots summed, at its first position). Keeps the order otherwise.
std::vector<HostSpec> merge_hosts(std::vector<HostSpec> hosts);

// Whether `name` is this host: localhost, 127.0.0.1, ::1, this host's name (short or full), or
// an address of one of its interfaces. Never asks DNS.
bool is_local_host(std::string_view name);

}  // namespace gpurun::launcher

// The singleton bootstrap: a program started without a launcher is rank 0 of 1.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <random>

#include "runtime/bootstrap/bootstrap.h"

namespace gpurun::bootstrap {
namespace {

std::string random_token() {
  std::random_device device;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x%08x", device(), device());
  return buf;
}

class Singleton final : public Bootstrap {
 public:
  Singleton() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    job_.host = host;
    job_.nspace = "singleton." + std::to_string(getpid());
    job_.job_token = random_token();
    job_.leader_host = job_.host;
    job_.launcher = Launcher::kSingleton;
  }

  Status put(std::string_view key, std::span<const std::byte> value) override {
    values_[std::string(key)] = std::vector<std::byte>(value.begin(), value.end());
    return ok_status();
  }
  Status fence(bool /*collect_data*/) override { return ok_status(); }
  Result<std::vector<std::byte>> get(int rank, std::string_view key) override {
    auto it = values_.find(std::string(key));
    if (rank != 0 || it == values_.end())
      return Status(ErrorCode::kNotFound, "no key " + std::string(key) + " for rank " +
                                              std::to_string(rank));
    return it->second;
  }
  void abort(int /*code*/, std::string_view /*message*/) override {}
  Status finalize() override { return ok_status(); }

 private:
  std::map<std::string, std::vector<std::byte>> values_;
};

}  // namespace

std::unique_ptr<Bootstrap> create_singleton() { return std::make_unique<Singleton>(); }

}  // namespace gpurun::bootstrap

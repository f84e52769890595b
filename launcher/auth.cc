#include "launcher/auth.h"

#include <dlfcn.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "launcher/job_dir.h"
#include "launcher/wire.h"

namespace gpurun::launcher::auth {
namespace {

// The two libcrypto calls used, declared here so that gpurun neither links libcrypto (which
// would cost every one-host start its relocation) nor needs OpenSSL's headers to build. Their
// signatures are the same in OpenSSL 1.1 and 3.
struct EvpMd;
using Sha256Fn = const EvpMd* (*)();
using HmacFn = unsigned char* (*)(const EvpMd*, const void*, int, const unsigned char*, size_t,
                                  unsigned char*, unsigned int*);

struct Crypto {
  Sha256Fn sha256 = nullptr;
  HmacFn hmac = nullptr;
  std::string error;
};

const Crypto& crypto() {
  static Crypto loaded = [] {
    Crypto c;
    void* handle = nullptr;
    for (const char* name : {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"})
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (handle == nullptr) {
      c.error = "cannot load OpenSSL's libcrypto (libssl3) for the job's authentication";
      return c;
    }
    c.sha256 = reinterpret_cast<Sha256Fn>(dlsym(handle, "EVP_sha256"));
    c.hmac = reinterpret_cast<HmacFn>(dlsym(handle, "HMAC"));
    if (c.sha256 == nullptr || c.hmac == nullptr) c.error = "libcrypto has no EVP_sha256/HMAC";
    return c;
  }();
  return loaded;
}

std::string proof(std::string_view secret, std::string_view role, std::uint32_t node,
                  std::string_view first, std::string_view second) {
  wire::Encoder data;
  data.str(role).u32(node).str(first).str(second);
  return hmac_sha256(secret, data.take());
}

}  // namespace

std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(r);
  }
  return out;
}

std::string make_secret() { return random_hex(32); }

std::string hmac_sha256(std::string_view key, std::string_view data) {
  const Crypto& c = crypto();
  if (!c.error.empty()) throw std::runtime_error(c.error);
  unsigned char out[64];
  unsigned int length = 0;
  if (c.hmac(c.sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
             &length) == nullptr)
    throw std::runtime_error("HMAC-SHA256 failed");
  return std::string(reinterpret_cast<char*>(out), length);
}

std::string daemon_proof(std::string_view secret, std::uint32_t node, std::string_view challenge,
                         std::string_view nonce) {
  return proof(secret, "gpurun daemon", node, challenge, nonce);
}

std::string launcher_proof(std::string_view secret, std::uint32_t node, std::string_view challenge,
                           std::string_view nonce) {
  return proof(secret, "gpurun launcher", node, nonce, challenge);
}

bool same(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace gpurun::launcher::auth

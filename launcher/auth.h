// Mutual authentication of gpurun and its daemons with the job's secret.
//
// gpurun makes a random secret per job and gives it to each daemon on the daemon's stdin,
// through the launch agent (never on a command line, never in a rank's environment). On
// connecting, each side proves that it knows the secret without sending it: gpurun sends a
// random challenge, the daemon answers with its own nonce and HMAC-SHA256(secret, "gpurun
// daemon" | node | challenge | nonce), and gpurun, having checked that, answers with
// HMAC-SHA256(secret, "gpurun launcher" | node | nonce | challenge), which the daemon checks
// before it does anything. A proof is bound to both nonces, so a recorded one is worthless.
//
// HMAC-SHA256 comes from OpenSSL's libcrypto, loaded when a job first spans hosts (gpurun on
// one host never loads it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpurun::launcher::auth {

inline constexpr std::size_t kNonceBytes = 32;

// `n` random bytes from getrandom(). Throws std::runtime_error.
std::string random_bytes(std::size_t n);
// A new job secret: 64 hex digits.
std::string make_secret();
// HMAC-SHA256 (32 bytes). Throws std::runtime_error when libcrypto cannot be loaded.
std::string hmac_sha256(std::string_view key, std::string_view data);

std::string daemon_proof(std::string_view secret, std::uint32_t node, std::string_view challenge,
                         std::string_view nonce);
std::string launcher_proof(std::string_view secret, std::uint32_t node, std::string_view challenge,
                           std::string_view nonce);
// Compares in time independent of where the inputs differ.
bool same(std::string_view a, std::string_view b);

}  // namespace gpurun::launcher::auth

#include "runtime/base/crash.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "runtime/base/params.h"

namespace gpurun::crash {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
char g_header[160];  // "[host:pid:rank] rank R: "
std::size_t g_header_length = 0;
alignas(64) char g_stack[64 * 1024];  // the handler's stack: a stack overflow still reports

// A report is gathered here and leaves in one write, so that the lines of two ranks' stacks do
// not interleave on gpurun's stderr; the frames come through a pipe of the process's own.
char g_report[16 * 1024];
std::size_t g_report_length = 0;
int g_frames[2] = {-1, -1};

// Async-signal-safe appends to the report, and its write to stderr.
void put(const char* text, std::size_t length) {
  length = std::min(length, sizeof g_report - g_report_length);
  std::memcpy(g_report + g_report_length, text, length);
  g_report_length += length;
}
void put(const char* text) { put(text, std::strlen(text)); }
void send_report() {
  const char* text = g_report;
  std::size_t length = g_report_length;
  while (length > 0) {
    ssize_t n = write(STDERR_FILENO, text, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text += n;
    length -= static_cast<std::size_t>(n);
  }
  g_report_length = 0;
}
void put_hex(std::uintptr_t value) {
  char digits[2 + 2 * sizeof value];
  std::size_t at = sizeof digits;
  do {
    digits[--at] = "0123456789abcdef"[value & 0xf];
    value >>= 4;
  } while (value != 0);
  digits[--at] = 'x';
  digits[--at] = '0';
  put(digits + at, sizeof digits - at);
}

// What si_code says of the fault, for the common codes.
const char* cause(int sig, int code) {
  if (code <= 0) return "sent by a process";
  switch (sig) {
    case SIGSEGV:
      return code == SEGV_MAPERR ? "address not mapped" : "address not permitted";
    case SIGBUS:
      return code == BUS_ADRALN ? "misaligned address" : "address beyond the object";
    case SIGFPE:
      return code == FPE_INTDIV   ? "integer divide by zero"
             : code == FPE_INTOVF ? "integer overflow"
                                  : "floating-point exception";
    default:
      return "illegal instruction";
  }
}

pid_t g_main_thread = 0;  // the thread that installed the handlers (called MPI_Init)

// The calling thread's frames, a line each, then the whole report out.
void write_stack() {
  void* frames[64];
  int count = backtrace(frames, 64);
  if (g_frames[1] < 0) {
    send_report();
    backtrace_symbols_fd(frames, count, STDERR_FILENO);
    return;
  }
  backtrace_symbols_fd(frames, count, g_frames[1]);
  for (ssize_t n;
       g_report_length < sizeof g_report &&
       (n = read(g_frames[0], g_report + g_report_length, sizeof g_report - g_report_length)) > 0;)
    g_report_length += static_cast<std::size_t>(n);
  send_report();
}

// A request for the stack reaches whichever thread the kernel picks: it is passed on to the
// thread that called MPI_Init, which writes its own.
void on_stack_request(int sig, siginfo_t* /*info*/, void* /*context*/) {
  int saved = errno;
  if (g_main_thread > 0 && gettid() != g_main_thread) {
    syscall(SYS_tgkill, getpid(), g_main_thread, sig);
  } else {
    put(g_header, g_header_length);
    put("stack at gpurun's request:\n");
    write_stack();
  }
  errno = saved;
}

void on_fault(int sig, siginfo_t* info, void* /*context*/) {
  put(g_header, g_header_length);
  put("signal SIG");
  const char* name = sigabbrev_np(sig);
  put(name != nullptr ? name : "?");
  put(" (");
  put(cause(sig, info->si_code));
  if (info->si_code > 0) {
    put(", ");
    put_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
  }
  put("); backtrace:\n");
  write_stack();
  // SA_RESETHAND put the default action back: a fault recurs as the handler returns, a signal
  // sent by a process is sent again.
  if (info->si_code <= 0) raise(sig);
}

bool left_at_default(int sig) {
  struct sigaction old {};
  return sigaction(sig, nullptr, &old) == 0 && (old.sa_flags & SA_SIGINFO) == 0 &&
         old.sa_handler == SIG_DFL;
}

void use_own_stack() {
  stack_t current{};
  if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;
  stack_t own{.ss_sp = g_stack, .ss_flags = 0, .ss_size = sizeof g_stack};
  sigaltstack(&own, nullptr);
}

// The pipe write_stack() gathers frames through; none in a process started without its standard
// streams, where it could take their numbers.
void open_frame_pipe() {
  if (g_frames[0] >= 0 || pipe2(g_frames, O_CLOEXEC | O_NONBLOCK) != 0) return;
  if (std::min(g_frames[0], g_frames[1]) > STDERR_FILENO) return;
  close(g_frames[0]);
  close(g_frames[1]);
  g_frames[0] = g_frames[1] = -1;
}

}  // namespace

void install(int rank, std::string_view host) {
  if (!params::backtrace().get()) return;
  int n = std::snprintf(g_header, sizeof g_header, "[%.*s:%d:%d] rank %d: ",
                        static_cast<int>(std::min<std::size_t>(host.size(), 64)), host.data(),
                        static_cast<int>(getpid()), rank, rank);
  g_header_length = n > 0 ? std::min(static_cast<std::size_t>(n), sizeof g_header - 1) : 0;
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder now: the handler must not load a library
  open_frame_pipe();
  use_own_stack();
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals)
    if (left_at_default(sig)) sigaction(sig, &action, nullptr);
  g_main_thread = gettid();
  action.sa_sigaction = on_stack_request;
  action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  if (left_at_default(stack_signal())) sigaction(stack_signal(), &action, nullptr);
}

int stack_signal() { return SIGRTMIN + 6; }

}  // namespace gpurun::crash

// What a rank says when it dies of a fault: on SIGSEGV, SIGBUS, SIGFPE or SIGILL it writes
// "[host:pid:rank] rank R: signal SIGSEGV (address not mapped, 0x10); backtrace:" and its
// stack, one frame a line, to stderr, then dies of the same signal (gpurun then reports the rank
// killed by it), as the peers' libraries do. The handler runs on a stack of its own, so that a
// stack overflow is reported too, and does nothing but write: each report leaves in one write
// (its frames gathered through a pipe of the process's own), so that two ranks' reports do not
// interleave on gpurun's stderr.
#pragma once

#include <string_view>

namespace gpurun::crash {

// Installs the handler for each of those signals that the program has left at its default
// (a program's or a tool's own handler, a sanitizer's, stays), and the one of stack_signal();
// GPURUN_BACKTRACE=false installs none. Called by MPI_Init once the rank is known, on the
// thread whose stack stack_signal() shows.
void install(int rank, std::string_view host);

// The signal that asks a rank for its stack (gpurun --timeout with --get-stack-traces): the
// thread that called MPI_Init writes "[host:pid:rank] rank R: stack at gpurun's request:" and
// its frames to stderr, and the rank goes on. SIGRTMIN + 6.
int stack_signal();

}  // namespace gpurun::crash

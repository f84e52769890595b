/* The driver of the garbage-arguments test (garbage.c) and the calls gen_calls.py writes. */
#ifndef GPURUN_TESTS_GARBAGE_H
#define GPURUN_TESTS_GARBAGE_H

#include <mpi.h>

struct garbage_call {
  const char *name;
  void (*call)(void);
};
extern const struct garbage_call garbage_calls[];

/* Handle pools and pointer kinds the calls draw from. */
enum pool {
  kComm,
  kGroup,
  kType,
  kOp,
  kErrhandler,
  kRequest,
  kMessage,
  kInfo,
  kWin,
  kSession,
  kStream,
  kFint,
  kPools
};
enum pointer_kind { kData, kInts, kLongs, kBuffer, kStatus, kString };

long pick_handle(int arg, enum pool pool);
int pick_int(int arg);
long pick_long(int arg);
void *pick_pointer(int arg, enum pointer_kind kind);
/* An array of handles of `pool`: valid ones, or null, zeros or all bits set. */
void *pick_handles(int arg, enum pool pool);
void *pick_function(int arg);
MPI_File pick_file(int arg);

#endif

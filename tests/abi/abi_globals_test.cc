// The objects and the helper that api/abi_globals.cc defines for the MPICH ABI.
#include <gtest/gtest.h>
#include <mpi.h>

#include <set>

namespace gpurun::api {
namespace {

TEST(AbiGlobals, DupFnCopiesTheAttributePointerAndKeepsIt) {
  int value = 42;
  void *copy = nullptr;
  int flag = 0;
  EXPECT_EQ(MPIR_Dup_fn(MPI_COMM_WORLD, 7, nullptr, &value, &copy, &flag), MPI_SUCCESS);
  EXPECT_EQ(copy, &value);
  EXPECT_EQ(flag, 1);
}

TEST(AbiGlobals, EveryDupConstantNamesTheSameFunction) {
  const auto dup = reinterpret_cast<void (*)()>(&MPIR_Dup_fn);
  EXPECT_EQ(reinterpret_cast<void (*)()>(MPI_DUP_FN), dup);
  EXPECT_EQ(reinterpret_cast<void (*)()>(MPI_COMM_DUP_FN), dup);
  EXPECT_EQ(reinterpret_cast<void (*)()>(MPI_TYPE_DUP_FN), dup);
  EXPECT_EQ(reinterpret_cast<void (*)()>(MPI_WIN_DUP_FN), dup);
}

TEST(AbiGlobals, MarkersAreDistinctAndNeverASpecialAddress) {
  const std::set<const void *> markers = {MPI_UNWEIGHTED,        MPI_WEIGHTS_EMPTY,
                                          MPI_F_STATUS_IGNORE,   MPI_F_STATUSES_IGNORE,
                                          MPI_F08_STATUS_IGNORE, MPI_F08_STATUSES_IGNORE};
  EXPECT_EQ(markers.size(), 6u);
  const void *const specials[] = {nullptr, MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE};
  for (const void *special : specials) {
    EXPECT_EQ(markers.count(special), 0u) << special;
  }
}

}  // namespace
}  // namespace gpurun::api

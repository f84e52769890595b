// The shared-memory algorithms in the registry of coll/algorithm.h, named "shm" (and "cma" for
// their single-copy forms), with the conditions under which each can run (see algorithms.h).
// Each algorithm's file starts with its idea, requirements and cost.
#include "coll/shm/algorithms.h"
#include "coll/shm/arenas.h"

namespace gpurun::coll::shm {
namespace {

bool usable_any(const Args& args) { return usable_common(args); }

// Every slot has at least kMinSlotBytes (new_slot_bytes()): sizes within it need no look at
// the knob, which costs more than the rest of a small call's selection.
constexpr std::size_t kMinSlotBytes = kPageBytes * Arena::kParts;
bool fits_slot(std::size_t bytes) { return bytes <= kMinSlotBytes || bytes <= new_slot_bytes(); }

// Alltoall(v) and scatter put a chunk for each rank into half a slot: at least a line each.
bool usable_per_rank_chunks(const Args& args) {
  return usable_common(args) &&
         fits_slot(static_cast<std::size_t>(args.comm->size()) * 2 * kLineBytes);
}

// The slots carry packed operands, which the op reads where they are: the type must be
// contiguous, and an element must fit in half a slot.
bool usable_reduction(const Args& args) {
  return usable_common(args) && args.type != nullptr && args.op != nullptr &&
         args.type->contiguous() && args.type->size() > 0 &&
         fits_slot(static_cast<std::size_t>(args.type->size()) * 2) &&
         args.op->defined_for(*args.type);
}

// The blocks of reduce_scatter go into half a slot a chunk each, at least an element each.
bool usable_reduce_scatter(const Args& args) {
  return usable_reduction(args) && fits_slot(static_cast<std::size_t>(args.comm->size()) *
                                             static_cast<std::size_t>(args.type->size()) * 2);
}

bool segment_failed(const Args& args) { return args.comm != nullptr && arena_broken(*args.comm); }

template <Factory make>
Result<std::unique_ptr<Operation>> create(const Args& args) {
  return create_on_arena(args, make);
}

}  // namespace
}  // namespace gpurun::coll::shm

#define GPURUN_REGISTER_SHM_AS(id, name_text, collective_id, usable_fn, make_fn, summary_text) \
  GPURUN_REGISTER_ALGORITHM(                                                                   \
      id, .name = name_text, .collective = ::gpurun::coll::Collective::collective_id,          \
      .usable = ::gpurun::coll::shm::usable_fn,                                                \
      .create = ::gpurun::coll::shm::create<::gpurun::coll::shm::make_fn>,                     \
      .summary = summary_text, .falls_back = ::gpurun::coll::shm::segment_failed,              \
      .release = ::gpurun::coll::shm::release_comm)
#define GPURUN_REGISTER_SHM(id, collective_id, usable_fn, make_fn, summary_text) \
  GPURUN_REGISTER_SHM_AS(id, "shm", collective_id, usable_fn, make_fn, summary_text)

GPURUN_REGISTER_SHM(shm_barrier, kBarrier, usable_any, make_barrier,
                    "flags in a shared segment: one cache-line hop (flat), or up a tree of "
                    "flags and back (log_radix p + 1 hops)")
GPURUN_REGISTER_SHM(shm_bcast, kBcast, usable_any, make_bcast,
                    "the root's flag line (<= 56 B) or its slot in pipelined chunks; every "
                    "rank copies out at once")
GPURUN_REGISTER_SHM(shm_reduce, kReduce, usable_reduction, make_reduce,
                    "flag lines (<= 56 B), the root combining all slots, or each rank "
                    "combining a share of every chunk; two ranks on their own cores: the "
                    "other streams its operand through its slot, the root combining each "
                    "chunk into its output (contiguous types)")
GPURUN_REGISTER_SHM(shm_allreduce, kAllreduce, usable_reduction, make_allreduce,
                    "flag lines (<= 56 B), every rank combining all slots, or reduce-scatter "
                    "+ allgather through the slots (contiguous types)")
GPURUN_REGISTER_SHM(shm_scan, kScan, usable_reduction, make_allreduce,
                    "flag lines (<= 56 B) or the slots in rounds: each rank combines the "
                    "operands of the ranks up to its own (contiguous types)")
GPURUN_REGISTER_SHM(shm_exscan, kExscan, usable_reduction, make_allreduce,
                    "flag lines (<= 56 B) or the slots in rounds: each rank combines the "
                    "operands of the ranks before it (contiguous types)")
GPURUN_REGISTER_SHM(shm_allgather, kAllgather, usable_any, make_allgather,
                    "each rank's block in its flag line (<= 56 B) or slot; everyone copies "
                    "every block out")
GPURUN_REGISTER_SHM(shm_allgatherv, kAllgatherv, usable_any, make_allgather,
                    "each rank's block in its slot, in as many rounds as the largest block "
                    "needs; everyone copies every block out")
GPURUN_REGISTER_SHM(shm_alltoall, kAlltoall, usable_per_rank_chunks, make_alltoall,
                    "each rank writes everyone's block into its slot (or flag line); each "
                    "reads its own from every slot")
GPURUN_REGISTER_SHM(shm_alltoallv, kAlltoallv, usable_per_rank_chunks, make_alltoall,
                    "each rank writes everyone's block into its slot with the counts; each "
                    "reads its own from every slot, in as many rounds as its largest block needs")
GPURUN_REGISTER_SHM(shm_gather, kGather, usable_any, make_gather,
                    "each rank's block in its flag line (<= 56 B) or slot; the root copies "
                    "them all out")
GPURUN_REGISTER_SHM(shm_gatherv, kGatherv, usable_any, make_gather,
                    "each rank's block in its slot, in as many rounds as its block needs; the "
                    "root copies them all out")
GPURUN_REGISTER_SHM(shm_scatter, kScatter, usable_per_rank_chunks, make_scatter,
                    "the root writes the others' blocks into its flag line (<= 56 B in all) "
                    "or its slot; each rank copies its own out")
GPURUN_REGISTER_SHM(shm_scatterv, kScatterv, usable_per_rank_chunks, make_scatter,
                    "the root writes every block into its slot with its count; each rank "
                    "copies its own out, in as many rounds as its block needs")
GPURUN_REGISTER_SHM(shm_reduce_scatter, kReduceScatter, usable_reduce_scatter, make_reduce_scatter,
                    "every rank writes all blocks into its slot; each combines its own block "
                    "from all slots straight into its buffer (contiguous types)")
GPURUN_REGISTER_SHM(shm_reduce_scatter_block, kReduceScatterBlock, usable_reduce_scatter,
                    make_reduce_scatter,
                    "every rank writes all blocks into its slot; each combines its own block "
                    "from all slots straight into its buffer (contiguous types)")

// Single copy by CMA (coll/shm/cma.h), named "cma"; as "shm" where a member cannot reach another.
GPURUN_REGISTER_SHM_AS(cma_bcast, "cma", kBcast, usable_any, make_bcast_cma,
                       "the root publishes where its data lies in the shared segment; every "
                       "rank reads it from there by CMA (one copy); where ranks share cores, one "
                       "reader per core does and passes it on through its slot; as shm without "
                       "CMA")
GPURUN_REGISTER_SHM_AS(cma_allgather, "cma", kAllgather, usable_any, make_allgather_cma,
                       "each rank publishes where its block lies; every rank reads each block "
                       "from its owner's buffer by CMA (one copy); as shm without CMA")
GPURUN_REGISTER_SHM_AS(cma_allgatherv, "cma", kAllgatherv, usable_any, make_allgather_cma,
                       "each rank's block with its count in an entry line (up to 4K in its "
                       "slot); every rank copies each block from the slot or its owner's buffer "
                       "by CMA; as shm without CMA")
GPURUN_REGISTER_SHM_AS(
    cma_alltoall, "cma", kAlltoall, usable_per_rank_chunks, make_alltoall_cma,
    "each rank publishes where its send blocks lie; every rank reads its block "
    "from each send buffer by CMA (one copy), but from the slot of a rank on its "
    "core (blocks up to 64K); as shm without CMA")
GPURUN_REGISTER_SHM_AS(cma_alltoallv, "cma", kAlltoallv, usable_per_rank_chunks, make_alltoall_cma,
                       "each rank lists where its send blocks lie (blocks up to 4K in its slot); "
                       "every rank copies its block from the slot or the send buffer by CMA; as "
                       "shm without CMA")
GPURUN_REGISTER_SHM_AS(cma_gather, "cma", kGather, usable_per_rank_chunks, make_gather_cma,
                       "blocks up to 56 B in the flag lines; larger ones as gatherv's cma")
GPURUN_REGISTER_SHM_AS(cma_scatter, "cma", kScatter, usable_per_rank_chunks, make_scatter_cma,
                       "the others' blocks in the root's flag line (<= 56 B in all); larger "
                       "ones as scatterv's cma")
GPURUN_REGISTER_SHM_AS(cma_gatherv, "cma", kGatherv, usable_per_rank_chunks, make_gather_cma,
                       "the root lists where each block goes; each rank writes its block there "
                       "by CMA (up to 4K: into its slot, for the root to copy) and says its "
                       "count; as shm without CMA")
GPURUN_REGISTER_SHM_AS(cma_scatterv, "cma", kScatterv, usable_per_rank_chunks, make_scatter_cma,
                       "the root lists each rank's block and count in an entry line (blocks up "
                       "to 4K in its slot); each rank copies its block from the slot or the "
                       "root's send buffer by CMA; as shm without CMA")
GPURUN_REGISTER_SHM_AS(cma_reduce, "cma", kReduce, usable_reduction, make_reduce_cma,
                       "two ranks: the root combines two thirds straight from the other's "
                       "buffer by CMA while the other combines the rest and writes it into the "
                       "root's (contiguous types); as shm otherwise")

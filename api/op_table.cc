// The op handles: predefined ops by their builtin handle, users' ops in a HandleTable, and the
// trampoline that calls an MPI_User_function with the datatype's handle.
#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

#include "api/coll_repeat.h"
#include "api/datatypes.h"
#include "api/handle.h"
#include "api/ops.h"

namespace gpurun::api {
namespace {

constexpr std::uint32_t kFirstBuiltin = static_cast<std::uint32_t>(MPI_MAX);
static_assert(static_cast<std::uint32_t>(MPI_NO_OP) - kFirstBuiltin ==
              static_cast<std::uint32_t>(core::OpKind::kNoOp));
static_assert(static_cast<std::uint32_t>(MPI_SUM) - kFirstBuiltin ==
              static_cast<std::uint32_t>(core::OpKind::kSum));

struct UserOp {
  std::unique_ptr<core::Op> op;
  MPI_User_function* fn = nullptr;
  MPI_User_function_c* fn_c = nullptr;
};

HandleTable<UserOp>& user_ops() {
  static auto* table = new HandleTable<UserOp>();
  return *table;
}

// Ops freed while an operation in flight still held them; dropped once they are released.
std::vector<std::unique_ptr<UserOp>>& retired() {
  static auto* ops = new std::vector<std::unique_ptr<UserOp>>();
  return *ops;
}

void sweep_retired() {
  std::erase_if(retired(), [](const std::unique_ptr<UserOp>& u) { return !u->op->in_use(); });
}

// The handle a user function gets for `type`, set by TypeHandleScope or found by lookup.
thread_local const core::Datatype* t_hint_type = nullptr;
thread_local MPI_Datatype t_hint_handle = MPI_DATATYPE_NULL;
thread_local const core::Datatype* t_found_type = nullptr;
thread_local MPI_Datatype t_found_handle = MPI_DATATYPE_NULL;

// The handle of a user type is found by scanning the handle table (the datatype layer keeps no
// reverse map), once per type and thread thanks to the cache above. User handles are dense
// (the table reuses freed slots first), so the scan stops after this many free slots in a row
// (about 0.1 ms). A type that no handle names (freed while an operation uses it) gets a
// temporary handle for the call.
constexpr std::uint32_t kScanGap = 65536;

MPI_Datatype lookup_handle(const core::Datatype& type) {
  if (type.predefined()) {
    MPI_Datatype h = predefined_handle(&type);
    if (h != MPI_DATATYPE_NULL) return h;
  }
  for (std::uint32_t i = 0, misses = 0; misses < kScanGap; ++i) {
    auto h =
        static_cast<MPI_Datatype>(make_handle(HandleKind::kIndirect, ObjectType::kDatatype, i));
    const core::Datatype* t = find_datatype(h);
    if (t == &type) return h;
    misses = t == nullptr ? misses + 1 : 0;
  }
  return MPI_DATATYPE_NULL;
}

// The datatype handle for one user-function call; a temporary handle lives as long as it.
class CallHandle {
 public:
  explicit CallHandle(const core::Datatype& type) {
    if (t_hint_type == &type) {
      handle_ = t_hint_handle;
    } else if (t_found_type == &type && find_datatype(t_found_handle) == &type) {
      handle_ = t_found_handle;
    } else {
      handle_ = lookup_handle(type);
      if (handle_ == MPI_DATATYPE_NULL) {
        handle_ = insert_datatype(core::DatatypeRef(&type));
        temporary_ = true;
      } else {
        t_found_type = &type;
        t_found_handle = handle_;
      }
    }
  }
  ~CallHandle() {
    if (temporary_) erase_datatype(handle_);
  }
  CallHandle(const CallHandle&) = delete;
  CallHandle& operator=(const CallHandle&) = delete;
  MPI_Datatype handle() const { return handle_; }

 private:
  MPI_Datatype handle_ = MPI_DATATYPE_NULL;
  bool temporary_ = false;
};

// core::UserFn for MPI_User_function (int lengths: more than INT_MAX elements go in pieces)
// and MPI_User_function_c.
void call_user(const void* in, void* inout, std::int64_t count, const core::Datatype& type,
               void* context) {
  const auto* user = static_cast<const UserOp*>(context);
  const CallHandle call_handle(type);
  MPI_Datatype handle = call_handle.handle();
  auto* a = static_cast<char*>(const_cast<void*>(in));
  auto* b = static_cast<char*>(inout);
  if (user->fn_c != nullptr) {
    MPI_Count len = count;
    user->fn_c(a, b, &len, &handle);
    return;
  }
  const std::int64_t extent = type.extent();
  while (count > 0) {
    int len = static_cast<int>(std::min<std::int64_t>(count, INT_MAX));
    user->fn(a, b, &len, &handle);
    a += len * extent;
    b += len * extent;
    count -= len;
  }
}

}  // namespace

const core::Op* find_op(MPI_Op handle) {
  std::uint32_t k = static_cast<std::uint32_t>(handle) - kFirstBuiltin;
  if (k < static_cast<std::uint32_t>(core::kPredefinedOpCount))
    return &core::Op::predefined(static_cast<core::OpKind>(k));
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kOp)
    return nullptr;
  const UserOp* user = user_ops().find(handle_index(handle));
  return user != nullptr ? user->op.get() : nullptr;
}

int check_reduction_op(const Call& call, MPI_Comm comm, MPI_Op handle, const core::Datatype& type,
                       const core::Op** op) {
  const core::Op* found = find_op(handle);
  if (found == nullptr) [[unlikely]] {
    if (handle == MPI_OP_NULL) return raise(call, comm, MPI_ERR_OP, "argument op is MPI_OP_NULL");
    return raise(call, comm, MPI_ERR_OP,
                 "argument op (0x%x) is not an op (freed, or never created by MPI_Op_create)",
                 static_cast<unsigned>(handle));
  }
  if (found->kind() == core::OpKind::kReplace || found->kind() == core::OpKind::kNoOp) [[unlikely]]
    return raise(call, comm, MPI_ERR_OP,
                 "argument op is %s, which only one-sided accumulate calls take; use another "
                 "predefined op or MPI_Op_create",
                 found->name());
  if (!found->defined_for(type)) [[unlikely]] {
    Status s = found->check(type);
    return raise(call, comm, MPI_ERR_OP, "%.*s", static_cast<int>(s.message().size()),
                 s.message().data());
  }
  *op = found;
  return MPI_SUCCESS;
}

MPI_Op create_user_op(MPI_User_function* fn, MPI_User_function_c* fn_c, bool commutative) {
  sweep_retired();
  auto user = std::make_unique<UserOp>();
  user->fn = fn;
  user->fn_c = fn_c;
  user->op = core::Op::user(&call_user, user.get(), commutative);
  std::uint32_t index = user_ops().insert(std::move(user));
  return static_cast<MPI_Op>(make_handle(HandleKind::kIndirect, ObjectType::kOp, index));
}

bool free_user_op(MPI_Op handle) {
  if (handle_kind(handle) != HandleKind::kIndirect || handle_type(handle) != ObjectType::kOp ||
      user_ops().find(handle_index(handle)) == nullptr)
    return false;
  std::unique_ptr<UserOp> user = user_ops().release(handle_index(handle));
  forget_repeats();
  if (user->op->in_use()) retired().push_back(std::move(user));
  sweep_retired();
  return true;
}

TypeHandleScope::TypeHandleScope(const core::Datatype* type, MPI_Datatype handle)
    : saved_type_(t_hint_type), saved_handle_(t_hint_handle) {
  t_hint_type = type;
  t_hint_handle = handle;
}

TypeHandleScope::~TypeHandleScope() {
  t_hint_type = saved_type_;
  t_hint_handle = saved_handle_;
}

}  // namespace gpurun::api

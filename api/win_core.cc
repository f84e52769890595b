// One-sided communication: the table of windows, their errors and error handlers, names, info
// and group.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "api/error_codes.h"
#include "api/handle.h"
#include "api/info.h"
#include "api/state.h"
#include "api/win.h"

namespace gpurun::api {

ObjectTable<Win>* const detail::g_wins = new ObjectTable<Win>();

namespace {

ObjectTable<Win>& wins() { return *detail::g_wins; }

void run_win_errhandler(MPI_Win win, int code, const std::string& message) {
  Win* w = find_win(win);
  if (w == nullptr) {
    run_errhandler(MPI_COMM_WORLD, code, message);
    return;
  }
  MPI_Errhandler handler = w->errhandler.handle();
  if (handler == MPI_ERRORS_RETURN) return;
  if (MPI_Win_errhandler_function* function = win_errhandler_function(handler)) {
    MPI_Win win_arg = win;
    int code_arg = code;
    function(&win_arg, &code_arg);
    return;
  }
  end_job(class_of_code(code), message);
}

}  // namespace

MPI_Win insert_win(std::unique_ptr<Win> win) {
  Win* w = win.get();
  std::uint32_t index = wins().insert(std::move(win));
  if (index == ObjectTable<Win>::kFull) return MPI_WIN_NULL;
  w->handle = make_handle(HandleKind::kIndirect, ObjectType::kWin, index);
  return w->handle;
}

std::unique_ptr<Win> erase_win(MPI_Win handle) {
  if (find_win(handle) == nullptr) return nullptr;
  return wins().release(handle_index(handle));
}

int raise_win(const Call& call, MPI_Win win, int error_class, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message;
  int code = error_code_v(call, error_class, &message, fmt, args);
  va_end(args);
  run_win_errhandler(win, code, message);
  return code;
}

int raise_win_status(const Call& call, MPI_Win win, const Status& status) {
  return raise_win(call, win, error_class_of(status.code()), "%s", status.to_string().c_str());
}

}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                                          MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Win_create_errhandler");
  return create_errhandler(call, "win_errhandler_fn", {.win = win_errhandler_fn}, errhandler);
}

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_Win_set_errhandler");
  GPURUN_CHECK_WIN(w, win);
  std::string problem = errhandler_problem(errhandler, ErrhandlerFor::kWin);
  if (!problem.empty()) return raise_win(call, win, MPI_ERR_ARG, "%s", problem.c_str());
  w->errhandler = ErrhandlerRef(errhandler);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Win_get_errhandler");
  GPURUN_CHECK_WIN(w, win);
  if (errhandler == nullptr)
    return raise_win(call, win, MPI_ERR_ARG, "argument errhandler is a null pointer");
  add_errhandler_handle(w->errhandler.handle());
  *errhandler = w->errhandler.handle();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  GPURUN_API_ENTER("MPI_Win_call_errhandler");
  GPURUN_CHECK_WIN(w, win);
  if (class_of_code(errorcode) < 0)
    return raise_win(call, win, MPI_ERR_ARG, "argument errorcode %d is not an error code",
                     errorcode);
  char text[MPI_MAX_ERROR_STRING];
  error_text(errorcode, text);
  run_win_errhandler(win, errorcode, std::string("MPI_Win_call_errhandler: ") + text);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  GPURUN_API_ENTER("MPI_Win_set_name");
  GPURUN_CHECK_WIN(w, win);
  if (win_name == nullptr)
    return raise_win(call, win, MPI_ERR_ARG, "argument win_name is a null pointer");
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  GPURUN_API_ENTER("MPI_Win_get_name");
  GPURUN_CHECK_WIN(w, win);
  if (win_name == nullptr || resultlen == nullptr) {
    return raise_win(call, win, MPI_ERR_ARG, "argument %s is a null pointer",
                     win_name ? "resultlen" : "win_name");
  }
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  GPURUN_API_ENTER("MPI_Win_get_group");
  GPURUN_CHECK_WIN(w, win);
  if (group == nullptr)
    return raise_win(call, win, MPI_ERR_ARG, "argument group is a null pointer");
  return PMPI_Comm_group(w->comm, group);
}

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  GPURUN_API_ENTER("MPI_Win_get_info");
  GPURUN_CHECK_WIN(w, win);
  if (info_used == nullptr)
    return raise_win(call, win, MPI_ERR_ARG, "argument info_used is a null pointer");
  return PMPI_Info_create(info_used);
}

// Hints change nothing here (every operation completes at its call); a bad info is an error.
extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  GPURUN_API_ENTER("MPI_Win_set_info");
  GPURUN_CHECK_WIN(w, win);
  if (info != MPI_INFO_NULL && find_info(info) == nullptr) {
    return raise_win(call, win, MPI_ERR_INFO, "argument info (0x%x) is not an info",
                     static_cast<unsigned>(info));
  }
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Win_create_errhandler)
GPURUN_MPI_ALIAS(MPI_Win_set_errhandler)
GPURUN_MPI_ALIAS(MPI_Win_get_errhandler)
GPURUN_MPI_ALIAS(MPI_Win_call_errhandler)
GPURUN_MPI_ALIAS(MPI_Win_set_name)
GPURUN_MPI_ALIAS(MPI_Win_get_name)
GPURUN_MPI_ALIAS(MPI_Win_get_group)
GPURUN_MPI_ALIAS(MPI_Win_get_info)
GPURUN_MPI_ALIAS(MPI_Win_set_info)

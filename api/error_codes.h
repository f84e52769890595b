// Error codes and classes: how the int range is shared out, and what api/errors.cc (the
// predefined classes and the codes that carry a message) and api/error_codes.cc (the classes
// and codes that users add) answer about a code.
//
// The range, in parts that never overlap:
//   0 .. 127                  the predefined classes (MPI_SUCCESS .. MPI_ERR_VALUE_TOO_LARGE,
//                             and room for MPIX ones): every class that MPI itself raises;
//   128 .. MPI_ERR_LASTCODE   codes that carry a message: class + 128 * sequence, the class
//   (0x3fffffff)              below 128 (MPI_Error_class is code % 128); the message is kept
//                             for the most recent ones (errors.cc);
//   MPI_ERR_LASTCODE + 1 ..   classes and codes added by MPI_Add_error_class and
//   INT_MAX                   MPI_Add_error_code, numbered in the order they were added; their
//                             classes are looked up (error_codes.cc);
//   negative                  no error code.
// So added codes never collide with MPI's own, and MPI_LASTUSEDCODE (the largest added one, or
// MPI_ERR_LASTCODE while there is none) is never below MPI_ERR_LASTCODE, as the standard asks.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace gpurun::api {

inline constexpr int kClassModulus = 128;  // every predefined class is below it
inline constexpr int kFirstAddedCode = MPI_ERR_LASTCODE + 1;

// errors.cc
// The class of error code `code`, or -1 when `code` is no error code (negative, or above
// MPI_ERR_LASTCODE and never added).
int class_of_code(int code);
// Whether `code` is an error class: a predefined one (MPI_SUCCESS included) or an added one.
bool is_error_class(int code);
// Writes MPI_Error_string's text for `code` (a valid code: class_of_code(code) >= 0) into `out`,
// of MPI_MAX_ERROR_STRING bytes.
void error_text(int code, char* out);

// error_codes.cc: the added classes and codes. Thread-safe (MPI_Error_class and
// MPI_Error_string may be called without the library's lock).
// The class of added class or code `code`, or -1 when `code` was not added.
int added_class_of(int code);
// Writes the string of added class or code `code` (empty until MPI_Add_error_string) into
// `out` of `size` bytes; false when `code` was not added.
bool added_error_string(int code, char* out, std::size_t size);
// The value of the MPI_LASTUSEDCODE attribute.
int last_used_code();

}  // namespace gpurun::api

// The keyval table and attribute lookups that attr.cc and attr_calls.cc share.
#pragma once

#include "api/attr.h"

namespace gpurun::api {

ObjectTable<Keyval>& keyvals();
// The keyval a handle names (freed by the user or not: attributes keep it alive), or nullptr.
Keyval* keyval_of(int handle);
// Drops one reference; the keyval goes with the last.
void unref_keyval(int handle);
Attribute* find_attribute(CommEntry& entry, int keyval);
// Runs the delete callback of `a`'s keyval for it on `comm`; MPI_SUCCESS or the callback's error.
int call_delete(MPI_Comm comm, const Attribute& a);

}  // namespace gpurun::api

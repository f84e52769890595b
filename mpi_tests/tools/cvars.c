/* MPI_T control variables are gpurun's knobs: every one is found by its name, reads the value
 * the environment gave it (the testlist sets GPURUN_IO_SIEVE_SPAN=8K and
 * GPURUN_PROGRESS_WAIT=yield), with the C type its datatype says; a write before MPI_Init is
 * what the runtime then uses (GPURUN_NAME_DIR: MPI_Publish_name writes there), a write after
 * it is refused. Categories hold every knob once, and "pml" its performance variables. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

static void expect(int rc, int want, const char *what) {
  MTEST_CHECK(rc == want, "%s returned %d, want %d", what, rc, want);
}

static int index_of(const char *name) {
  int index = -1;
  expect(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS, name);
  return index;
}

static MPI_T_cvar_handle handle_of(const char *name, MPI_Datatype want_type, int want_count) {
  int index = index_of(name), count = -1;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  expect(MPI_T_cvar_get_info(index, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL),
         MPI_SUCCESS, "cvar_get_info");
  MTEST_CHECK(type == want_type, "%s: datatype 0x%x", name, (unsigned)type);
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  expect(MPI_T_cvar_handle_alloc(index, NULL, &handle, &count), MPI_SUCCESS, "handle_alloc");
  MTEST_CHECK(want_count == 0 ? count > 1 : count == want_count, "%s: count %d", name, count);
  return handle;
}

/* Every knob: its info, found again by its name, read once. */
static void every_knob(int num) {
  for (int i = 0; i < num; ++i) {
    char name[128], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, count, found = -1;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    expect(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                               &bind, &scope),
           MPI_SUCCESS, "cvar_get_info");
    MTEST_CHECK(strncmp(name, "GPURUN_", 7) == 0 && name_len == (int)strlen(name) + 1,
                "cvar %d: name '%s' (%d)", i, name, name_len);
    MTEST_CHECK(strlen(desc) > 10 && bind == MPI_T_BIND_NO_OBJECT, "cvar %s: desc or bind", name);
    MTEST_CHECK(scope == MPI_T_SCOPE_ALL_EQ || scope == MPI_T_SCOPE_LOCAL, "%s scope", name);
    MTEST_CHECK(enumtype == MPI_T_ENUM_NULL || type == MPI_INT, "%s: an enum not MPI_INT", name);
    expect(MPI_T_cvar_get_index(name, &found), MPI_SUCCESS, name);
    MTEST_CHECK(found == i, "%s found at %d, not %d", name, found, i);
    MPI_T_cvar_handle h;
    expect(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS, "handle_alloc");
    char value[1024];
    expect(MPI_T_cvar_read(h, value), MPI_SUCCESS, name);
    expect(MPI_T_cvar_handle_free(&h), MPI_SUCCESS, "handle_free");
    MTEST_CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle_free left the handle");
  }
}

static void strings(void) {
  char name[8] = "xxxxxxx";
  int len = sizeof name;
  expect(MPI_T_cvar_get_info(index_of("GPURUN_IO_SIEVE_SPAN"), name, &len, NULL, NULL, NULL, NULL,
                             NULL, NULL, NULL),
         MPI_SUCCESS, "get_info into a short buffer");
  MTEST_CHECK(strcmp(name, "GPURUN_") == 0 && len == 21, "truncated '%s', length %d", name, len);
  len = 0;
  expect(MPI_T_category_get_info(0, NULL, &len, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS,
         "category name length");
  MTEST_CHECK(len > 1, "category name length %d", len);
}

static void values(void) {
  unsigned long long bytes = 0;
  MPI_T_cvar_handle h = handle_of("GPURUN_IO_SIEVE_SPAN", MPI_UNSIGNED_LONG_LONG, 1);
  expect(MPI_T_cvar_read(h, &bytes), MPI_SUCCESS, "read size");
  MTEST_CHECK(bytes == 8192, "GPURUN_IO_SIEVE_SPAN reads %llu, want 8192 (8K)", bytes);
  expect(MPI_T_cvar_handle_free(&h), MPI_SUCCESS, "free");

  int value = -1, items = 0, index;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  index = index_of("GPURUN_PROGRESS_WAIT");
  expect(MPI_T_cvar_get_info(index, NULL, NULL, NULL, NULL, &enumtype, NULL, NULL, NULL, NULL),
         MPI_SUCCESS, "get_info enum");
  char ename[64];
  int elen = sizeof ename;
  expect(MPI_T_enum_get_info(enumtype, &items, ename, &elen), MPI_SUCCESS, "enum_get_info");
  MTEST_CHECK(items >= 3, "GPURUN_PROGRESS_WAIT has %d items", items);
  h = handle_of("GPURUN_PROGRESS_WAIT", MPI_INT, 1);
  expect(MPI_T_cvar_read(h, &value), MPI_SUCCESS, "read enum");
  int item_value = -1;
  elen = sizeof ename;
  expect(MPI_T_enum_get_item(enumtype, value, &item_value, ename, &elen), MPI_SUCCESS, "item");
  MTEST_CHECK(item_value == value && strcmp(ename, "yield") == 0, "enum reads %d '%s'", value,
              ename);
  expect(MPI_T_enum_get_item(enumtype, items, &item_value, ename, &elen), MPI_T_ERR_INVALID_ITEM,
         "item past the end");
  int bad = items;
  expect(MPI_T_cvar_write(h, &bad), MPI_T_ERR_INVALID, "write of an item past the end");
  expect(MPI_T_cvar_handle_free(&h), MPI_SUCCESS, "free");

  int on = -1;
  h = handle_of("GPURUN_TOPO_P2P", MPI_INT, 1);
  expect(MPI_T_cvar_read(h, &on), MPI_SUCCESS, "read bool");
  MTEST_CHECK(on == 1, "GPURUN_TOPO_P2P reads %d", on);
  expect(MPI_T_cvar_handle_free(&h), MPI_SUCCESS, "free");

  char text[MPI_MAX_INFO_VAL];
  h = handle_of("GPURUN_PML_EAGER_LIMIT", MPI_CHAR, 0);
  expect(MPI_T_cvar_read(h, text), MPI_SUCCESS, "read text");
  MTEST_CHECK(strcmp(text, "auto") == 0, "GPURUN_PML_EAGER_LIMIT reads '%s'", text);
  expect(MPI_T_cvar_write(h, "12 apples"), MPI_T_ERR_INVALID, "write of a bad value");
  expect(MPI_T_cvar_read(h, text), MPI_SUCCESS, "read text");
  MTEST_CHECK(strcmp(text, "auto") == 0, "a bad write changed it to '%s'", text);
  expect(MPI_T_cvar_handle_free(&h), MPI_SUCCESS, "free");
}

/* The categories hold every knob exactly once; "pml" holds GPURUN_PML_EAGER_LIMIT and every
 * performance variable. */
static void categories(int num_cvars) {
  int num = 0, seen = 0, pml = -1, pvars = 0;
  expect(MPI_T_category_get_num(&num), MPI_SUCCESS, "category_get_num");
  for (int c = 0; c < num; ++c) {
    int ncvars = -1, npvars = -1, ncats = -1;
    expect(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &ncvars, &npvars, &ncats),
           MPI_SUCCESS, "category_get_info");
    MTEST_CHECK(ncats == 0, "category %d holds %d categories", c, ncats);
    seen += ncvars;
  }
  MTEST_CHECK(seen == num_cvars, "categories hold %d knobs of %d", seen, num_cvars);
  expect(MPI_T_category_get_index("pml", &pml), MPI_SUCCESS, "category pml");
  int ncvars = 0, npvars = 0;
  expect(MPI_T_category_get_info(pml, NULL, NULL, NULL, NULL, &ncvars, &npvars, NULL), MPI_SUCCESS,
         "pml info");
  expect(MPI_T_pvar_get_num(&pvars), MPI_SUCCESS, "pvar_get_num");
  MTEST_CHECK(npvars == pvars, "pml holds %d of %d performance variables", npvars, pvars);
  int *members = malloc(sizeof(int) * (size_t)ncvars);
  expect(MPI_T_category_get_cvars(pml, ncvars, members), MPI_SUCCESS, "get_cvars");
  int eager = index_of("GPURUN_PML_EAGER_LIMIT"), found = 0;
  for (int i = 0; i < ncvars; ++i) found |= members[i] == eager;
  MTEST_CHECK(found, "pml lacks GPURUN_PML_EAGER_LIMIT");
  free(members);
}

static int published_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (d == NULL) return 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += strstr(e->d_name, ".name") != NULL;
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  int provided, num = 0;
  expect(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS, "MPI_T_init_thread");
  expect(MPI_T_cvar_get_num(&num), MPI_SUCCESS, "cvar_get_num");
  every_knob(num);
  strings();
  values();
  categories(num);

  char dir[] = "/tmp/gpurun-cvars-XXXXXX";
  MTEST_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  MPI_T_cvar_handle names = handle_of("GPURUN_NAME_DIR", MPI_CHAR, 0);
  expect(MPI_T_cvar_write(names, dir), MPI_SUCCESS, "write before MPI_Init");
  MPI_Init(&argc, &argv);
  char port[MPI_MAX_PORT_NAME] = "cvars-port";
  MPI_Publish_name("gpurun-cvars-test", MPI_INFO_NULL, port);
  MTEST_CHECK(published_files(dir) == 1, "MPI_Publish_name wrote %d names into %s",
              published_files(dir), dir);
  MPI_Unpublish_name("gpurun-cvars-test", MPI_INFO_NULL, port);
  char value[MPI_MAX_INFO_VAL];
  expect(MPI_T_cvar_read(names, value), MPI_SUCCESS, "read after MPI_Init");
  MTEST_CHECK(strcmp(value, dir) == 0, "GPURUN_NAME_DIR reads '%s'", value);
  expect(MPI_T_cvar_write(names, "/tmp"), MPI_T_ERR_CVAR_SET_NEVER, "write after MPI_Init");
  rmdir(dir);

  expect(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
  expect(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS, "init again");
  expect(MPI_T_cvar_read(names, value), MPI_T_ERR_INVALID_HANDLE, "a handle of the ended MPI_T");
  expect(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
  return mtest_finalize();
}

/* The PTX corpus, and comparing two reads of a PTX module
 * (test_ptx_reference, test_ptx_stream, test_ptx_portable). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/ptx.h"

/* Fails the test unless a and b read alike: every field a parse fills. */
void ptx_info_same(const tcmma_ptx_info *a, const tcmma_ptx_info *b, const char *name,
                   const char *how) {
  if (a->instruction_count != b->instruction_count || a->census_count != b->census_count)
    fail_msg("%s %s: %zu instructions, %zu opcodes; the first read %zu, %zu", name, how,
             b->instruction_count, b->census_count, a->instruction_count, a->census_count);
  for (size_t i = 0; i < a->census_count; i++)
    if (strcmp(a->census[i].opcode, b->census[i].opcode) || a->census[i].count != b->census[i].count)
      fail_msg("%s %s: %s x%zu where the first read has %s x%zu", name, how, b->census[i].opcode,
               b->census[i].count, a->census[i].opcode, a->census[i].count);
  assert_int_equal(a->entry_count, b->entry_count);
  for (size_t i = 0; i < a->entry_count; i++) assert_string_equal(a->entries[i], b->entries[i]);
  assert_int_equal(a->modifier_count, b->modifier_count);
  for (size_t i = 0; i < a->modifier_count; i++)
    assert_string_equal(a->modifiers[i], b->modifiers[i]);
  assert_string_equal(a->target, b->target);
  assert_int_equal(a->target_sm, b->target_sm);
  assert_int_equal(a->target_suffix, b->target_suffix);
  assert_int_equal(a->version_major * 100 + a->version_minor, b->version_major * 100 + b->version_minor);
  assert_int_equal(a->address_size, b->address_size);
  assert_ptr_equal(a->required_feature, b->required_feature);
  assert_int_equal(a->required_sm, b->required_sm);
  assert_int_equal(a->required_suffix, b->required_suffix);
  assert_int_equal(a->required_ptx, b->required_ptx);
  assert_int_equal(a->no_target, b->no_target);
  if (a->required_by) assert_string_equal(a->required_by, b->required_by);
  else assert_null(b->required_by);
}


ptx_module ptx_corpus[PTX_CORPUS_MAX];
size_t ptx_corpus_count;

int ptx_corpus_setup(void **state) {
  (void)state;
  static const char *const dirs[] = {"tests/data", "tests/data/ptx"};
  ptx_corpus_count = 0;
  for (size_t d = 0; d < 2; d++) {
    struct dirent **list;
    int n = scandir(src_path(dirs[d]), &list, NULL, alphasort);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
      size_t len = strlen(list[i]->d_name);
      if (len > 4 && strcmp(list[i]->d_name + len - 4, ".ptx") == 0 &&
          ptx_corpus_count < PTX_CORPUS_MAX) {
        ptx_module *m = &ptx_corpus[ptx_corpus_count];
        int w = snprintf(m->name, sizeof m->name, "%s/%s", dirs[d], list[i]->d_name);
        if (w < 0 || (size_t)w >= sizeof m->name) { /* a name the corpus cannot hold: fail setup */
          for (; i < n; i++) free(list[i]);
          free(list);
          return -1;
        }
        if ((m->text = read_file(src_path(m->name), &m->len))) ptx_corpus_count++;
      }
      free(list[i]);
    }
    free(list);
  }
  return ptx_corpus_count >= 10 ? 0 : -1;
}

int ptx_corpus_teardown(void **state) {
  (void)state;
  for (size_t i = 0; i < ptx_corpus_count; i++) free(ptx_corpus[i].text);
  ptx_corpus_count = 0;
  return 0;
}

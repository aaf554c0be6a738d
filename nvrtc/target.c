/* The target setting and target scopes: process-wide, under one mutex, so
 * that a scope opened on any thread changes what every compile targets. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

struct tcmma_target_scope {
  tcmma_target target;
  tcmma_records records;
  size_t cap;
  tcmma_target_scope *outer; /* the scope opened before this one */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tcmma_target_scope *innermost;
static tcmma_target programmatic = TCMMA_TARGET_CURRENT;

tcmma_target tcmma__arch_target_scope_innermost(void) {
  pthread_mutex_lock(&lock);
  tcmma_target t = innermost ? innermost->target : programmatic;
  pthread_mutex_unlock(&lock);
  return t;
}

tcmma_status tcmma_target_current(tcmma_target *out, tcmma_error *err) {
  tcmma_target t = tcmma__arch_target_scope_innermost();
  if (t == TCMMA_TARGET_CURRENT) {
    const char *env = getenv("TCMMA_PTX_TARGET");
    if (!env || !*env) {
      t = TCMMA_TARGET_FLOOR;
    } else if (tcmma_target_parse(env, &t, NULL) != TCMMA_OK) {
      char names[32];
      return tcmma_fail(err, TCMMA_INVALID, "TCMMA_PTX_TARGET='%s': expected %s", env,
                        tcmma__arch_target_names(names, sizeof names, false));
    }
  }
  if (out) *out = t;
  return TCMMA_OK;
}

tcmma_status tcmma_target_set(tcmma_target target, tcmma_error *err) {
  char names[32];
  if (target != TCMMA_TARGET_CURRENT && target != TCMMA_TARGET_FLOOR &&
      target != TCMMA_TARGET_NATIVE)
    return tcmma_fail(err, TCMMA_INVALID, "target %d: expected %s", (int)target,
                      tcmma__arch_target_names(names, sizeof names, true));
  pthread_mutex_lock(&lock);
  programmatic = target;
  pthread_mutex_unlock(&lock);
  return TCMMA_OK;
}

tcmma_status tcmma_target_scope_begin(tcmma_target target, tcmma_target_scope **out, tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "no place for the scope handle");
  *out = NULL;
  char names[32];
  if (target != TCMMA_TARGET_FLOOR && target != TCMMA_TARGET_NATIVE)
    return tcmma_fail(err, TCMMA_INVALID, "scope target %d: expected %s", (int)target,
                      tcmma__arch_target_names(names, sizeof names, false));
  tcmma_target_scope *s = calloc(1, sizeof *s);
  if (!s) return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for a scope");
  s->target = target;
  pthread_mutex_lock(&lock);
  s->outer = innermost;
  innermost = s;
  pthread_mutex_unlock(&lock);
  *out = s;
  return TCMMA_OK;
}

void tcmma_target_scope_end(tcmma_target_scope *scope, tcmma_records *records) {
  if (records) memset(records, 0, sizeof *records);
  if (!scope) return;
  pthread_mutex_lock(&lock);
  for (tcmma_target_scope **p = &innermost; *p; p = &(*p)->outer)
    if (*p == scope) {
      *p = scope->outer;
      break;
    }
  pthread_mutex_unlock(&lock);
  if (records) *records = scope->records;
  else tcmma_records_free(&scope->records);
  free(scope);
}

tcmma_status tcmma_with_target(tcmma_target target, tcmma_status (*fn)(void *arg), void *arg,
                               tcmma_records *records, tcmma_error *err) {
  if (records) memset(records, 0, sizeof *records);
  if (!fn) return tcmma_fail(err, TCMMA_INVALID, "no function to run");
  tcmma_target_scope *s = NULL;
  tcmma_status st = tcmma_target_scope_begin(target, &s, err);
  if (st != TCMMA_OK) return st;
  st = fn(arg);
  tcmma_target_scope_end(s, records);
  return st;
}

static void record_free(tcmma_record *r) {
  free(r->name), free(r->options), free(r->ptx);
}

void tcmma_records_free(tcmma_records *r) {
  if (!r) return;
  for (size_t i = 0; i < r->count; i++) record_free(&r->items[i]);
  free(r->items);
  memset(r, 0, sizeof *r);
}

static char *join_options(const tcmma_program *p) {
  size_t n = 1;
  for (size_t i = 0; i < p->n_options; i++) n += strlen(p->options[i]) + 1;
  char *s = malloc(n);
  if (!s) return NULL;
  s[0] = '\0';
  for (size_t i = 0, used = 0; i < p->n_options; i++) {
    size_t k = strlen(p->options[i]);
    if (i) s[used++] = ' ';
    memcpy(s + used, p->options[i], k + 1);
    used += k;
  }
  return s;
}

void tcmma__arch_target_scope_record(const tcmma_program *p) {
  pthread_mutex_lock(&lock);
  for (tcmma_target_scope *s = innermost; s; s = s->outer) {
    if (s->records.count == s->cap) {
      size_t cap = s->cap ? 2 * s->cap : 8;
      tcmma_record *grown = realloc(s->records.items, cap * sizeof *grown);
      if (!grown) continue; /* a record lost to no memory; the compile stands */
      s->records.items = grown, s->cap = cap;
    }
    tcmma_record r = {tcmma__compile_strdup(p->name), join_options(p),
                      tcmma__compile_strdup(p->ptx), ""};
    memcpy(r.target_arch, p->target_arch, sizeof r.target_arch);
    s->records.items[s->records.count++] = r;
  }
  pthread_mutex_unlock(&lock);
}

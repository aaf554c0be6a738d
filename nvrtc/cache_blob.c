/* The blob cache (include/tcmma/compile.h): a caller's own bytes in the
 * compile cache's disk directory, keyed by what made them. The entries are
 * the compile cache's own kind (nvrtc/cache.c), so locking, the size bound,
 * the survey and clearing hold for them unchanged; the key's domain keeps
 * them apart from compiles and from each other. */
#include <stdint.h>
#include <string.h>
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"
#include "tcmma/tcmma.h"

/* One length-prefixed part of a key: parts never run into each other. */
static void part(tcmma__sha256_state *s, const void *data, size_t n) {
  unsigned char len[8];
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)n >> (8 * i));
  tcmma__sha256_update(s, len, 8);
  tcmma__sha256_update(s, data, n);
}

tcmma_status tcmma_cache_key_make(const tcmma_cache_inputs *in, tcmma_cache_key *key,
                                  tcmma_error *err) {
  if (!in || !key) return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_key_make: in and key are "
                                     "required");
  if (in->size < sizeof *in)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_key_make: in->size is %zu, expected at "
                      "least %zu (TCMMA_CACHE_INPUTS_INIT)", in->size, sizeof *in);
  if (!in->domain || !*in->domain)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_key_make: no domain (what the bytes are)");
  if (in->n_parts && !in->parts)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_key_make: parts is NULL with n_parts %zu",
                      in->n_parts);
  for (size_t i = 0; i < in->n_parts; i++)
    if (!in->parts[i])
      return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_key_make: part %zu is NULL", i);
  tcmma__sha256_state s;
  tcmma__sha256_init(&s);
  static const char kind[] = "tcmma " TCMMA_VERSION " blob";
  part(&s, kind, sizeof kind);
  part(&s, in->domain, strlen(in->domain));
  for (size_t i = 0; i < in->n_parts; i++) part(&s, in->parts[i], strlen(in->parts[i]));
  if (in->program) {
    char id[8192];
    if (!tcmma__nvrtc_library_identity(in->program, id, sizeof id))
      return tcmma_fail(err, TCMMA_IO, "tcmma_cache_key_make: cannot read the identity of '%s'",
                        in->program);
    part(&s, "program", 7);
    part(&s, id, strlen(id));
  }
  if (in->source) {
    char note[512];
    part(&s, "source", 6);
    part(&s, in->source, in->source_len);
    if (!tcmma__cache_include_deps(in->source, in->source_len, in->source_name, in->parts,
                                   in->n_parts, &s, note, sizeof note))
      return tcmma_fail(err, TCMMA_IO, "tcmma_cache_key_make: %s", note);
  }
  tcmma__sha256_final(&s, key->bytes);
  return TCMMA_OK;
}

static tcmma_status check(const char *fn, const tcmma_cache_key *key, tcmma_error *err) {
  if (!key) return tcmma_fail(err, TCMMA_INVALID, "%s: key is NULL", fn);
  return tcmma__cache_check_setting(err);
}

tcmma_status tcmma_cache_store(const tcmma_cache_key *key, const void *data, size_t len,
                               tcmma_error *err) {
  tcmma_status st = check("tcmma_cache_store", key, err);
  if (st != TCMMA_OK) return st;
  if (!data || !len)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_store: no bytes (data %s, len %zu)",
                      data ? "set" : "NULL", len);
  tcmma__cache_blob_put(key->bytes, TCMMA__CACHE_ENTRY_SUFFIX, data, len);
  return TCMMA_OK;
}

tcmma_status tcmma_cache_fetch(const tcmma_cache_key *key, void **data, size_t *len, bool *hit,
                               tcmma_error *err) {
  if (!data || !len || !hit)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_fetch: data, len and hit are required");
  *data = NULL, *len = 0, *hit = false;
  tcmma_status st = check("tcmma_cache_fetch", key, err);
  if (st != TCMMA_OK) return st;
  *hit = tcmma__cache_blob_get(key->bytes, TCMMA__CACHE_ENTRY_SUFFIX, data, len);
  if (!*hit) *data = NULL, *len = 0;
  return TCMMA_OK;
}

/* tcmma_compile: arch options, the complete option list, the cache, NVRTC,
 * and the records of the open scopes. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"
#include "mma/abi.h"

/* Adds option text trimmed of surrounding blanks (normalisation: the same
 * options always give the same key); blank options are dropped. */
static bool add_option(tcmma_program *p, const char *text) {
  while (*text == ' ' || *text == '\t' || *text == '\n') text++;
  size_t n = strlen(text);
  while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n')) n--;
  if (n == 0) return true;
  char **grown = realloc(p->options, (p->n_options + 1) * sizeof *grown);
  if (!grown) return false;
  p->options = grown;
  char *copy = malloc(n + 1);
  if (!copy) return false;
  memcpy(copy, text, n);
  copy[n] = '\0';
  p->options[p->n_options++] = copy;
  return true;
}

static void hash_part(tcmma__sha256_state *s, const void *data, size_t n) {
  unsigned char len[8];
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)n >> (8 * i));
  tcmma__sha256_update(s, len, sizeof len);
  tcmma__sha256_update(s, data, n);
}

/* The cache key, the one place it is computed: everything a compile's
 * output depends on. The library version, the exact NVRTC build (its
 * library's and builtin headers' identity), the program name (it places the
 * source's own include directory), every option (the include directories
 * among them), the source, and every file its #includes read, by content
 * (tcmma__cache_include_scan); each part length-prefixed so no two different
 * inputs concatenate alike. false when an include cannot be resolved for
 * certain: then nothing may be cached, and note says why; 1 certain, 0
 * uncertain, -1 when the compile must not run (an include NVRTC would block
 * on: note names it). */
static int cache_key(const tcmma_program *p, const char *source, size_t len, const char *nvcc,
                     unsigned char key[32], char *note, size_t note_cap) {
  tcmma__sha256_state s;
  const char *nvrtc = tcmma__nvrtc_identity();
  tcmma__sha256_init(&s);
  hash_part(&s, "tcmma " TCMMA_VERSION, strlen("tcmma " TCMMA_VERSION));
  hash_part(&s, nvrtc ? nvrtc : "", nvrtc ? strlen(nvrtc) : 0);
  if (nvcc) hash_part(&s, nvcc, strlen(nvcc)); /* nvcc's compile is another entry */
  hash_part(&s, p->name, strlen(p->name));
  for (size_t i = 0; i < p->n_options; i++) hash_part(&s, p->options[i], strlen(p->options[i]));
  hash_part(&s, source, len);
  int certain = tcmma__cache_include_scan(source, len, p->name, (const char *const *)p->options,
                                          p->n_options, &s, note, note_cap);
  tcmma__sha256_final(&s, key);
  return certain;
}

/* opts->arch, checked against what NVRTC compiles for, into *out. */
static tcmma_status explicit_arch(const tcmma_compile_opts *o, tcmma_arch_options *out,
                                  tcmma_error *err) {
  if (o->arch_suffix && o->arch_suffix != 'a' && o->arch_suffix != 'f')
    return tcmma_fail(err, TCMMA_INVALID, "arch suffix '%c': expected none, 'a' or 'f'",
                      o->arch_suffix);
  tcmma_arch_support s;
  tcmma_status st = tcmma_nvrtc_support(&s, err);
  if (st != TCMMA_OK) return st;
  bool listed = false;
  char list[256] = "";
  for (size_t i = 0, n = 0; i < s.count; i++) {
    listed = listed || s.archs[i] == o->arch;
    if (n < sizeof list) n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", i ? " " : "", s.archs[i]);
  }
  if (!listed || (o->arch_suffix && (!s.accepts || !s.accepts(o->arch, o->arch_suffix, s.ctx))))
    return tcmma_fail(err, TCMMA_INVALID, "arch %d%s: NVRTC does not compile for it; it does for %s",
                      o->arch, tcmma__arch_suffix(o->arch_suffix), list);
  memset(out, 0, sizeof *out);
  out->arch = o->arch;
  out->suffix = o->arch_suffix;
  tcmma__arch_option(out->option, sizeof out->option, false, o->arch, o->arch_suffix);
  return TCMMA_OK;
}

/* The caller's options as this library's whole struct (an older, smaller
 * one gets the defaults for the rest). */
static tcmma_status take_opts(tcmma_compile_opts *out, const tcmma_compile_opts *opts,
                              tcmma_error *err) {
  *out = tcmma_compile_opts_default();
  return tcmma__abi_take(out, opts, sizeof *out, out, "tcmma_compile_opts",
                         "tcmma_compile_opts_default() or TCMMA_COMPILE_OPTS_INIT", err);
}

size_t tcmma_compile_include_dirs(const tcmma_compile_opts *opts, const char **dirs, size_t cap) {
  /* options of a bad size (which tcmma_compile refuses) add no directory */
  tcmma_compile_opts taken;
  if (opts && take_opts(&taken, opts, NULL) != TCMMA_OK) opts = NULL;
  if (opts) opts = &taken;
  size_t n = 0;
  for (size_t i = 0; opts && opts->include_dirs && i < opts->n_include_dirs; i++)
    if (opts->include_dirs[i] && opts->include_dirs[i][0]) {
      if (dirs && n < cap) dirs[n] = opts->include_dirs[i];
      n++;
    }
  const tcmma_nvrtc_info *info = tcmma__nvrtc_info();
  const char *toolkit[] = {info ? info->include_dir : "", info ? info->cccl_include_dir : ""};
  for (size_t i = 0; i < 2; i++)
    if (toolkit[i][0]) {
      if (dirs && n < cap) dirs[n] = toolkit[i];
      n++;
    }
  return n;
}

/* "NAME" or "NAME=VALUE" with NAME an identifier. */
static bool define_ok(const char *d) {
  if (!d || !((*d >= 'a' && *d <= 'z') || (*d >= 'A' && *d <= 'Z') || *d == '_')) return false;
  for (d++; *d && *d != '='; d++)
    if (!((*d >= 'a' && *d <= 'z') || (*d >= 'A' && *d <= 'Z') || (*d >= '0' && *d <= '9') ||
          *d == '_'))
      return false;
  return true;
}

static const char *const dialects[] = {"c++03", "c++11", "c++14", "c++17", "c++20"};

/* The defines, dialect and extra options, checked. */
static tcmma_status check_opts(const tcmma_compile_opts *o, tcmma_error *err) {
  const struct { const void *list; size_t n; const char *what; } lists[] = {
      {o->include_dirs, o->n_include_dirs, "include_dirs"},
      {o->defines, o->n_defines, "defines"},
      {o->extra, o->n_extra, "extra"}};
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    if (!lists[i].list && lists[i].n)
      return tcmma_fail(err, TCMMA_INVALID, "compile options: %s is NULL but n_%s is %zu",
                        lists[i].what, lists[i].what, lists[i].n);
  for (size_t i = 0; i < o->n_defines; i++)
    if (!define_ok(o->defines[i]))
      return tcmma_fail(err, TCMMA_INVALID, "define '%s': expected NAME or NAME=VALUE, NAME an identifier",
                        o->defines[i] ? o->defines[i] : "(null)");
  bool known = !o->std;
  for (size_t i = 0; o->std && i < sizeof dialects / sizeof dialects[0]; i++)
    known = known || strcmp(o->std, dialects[i]) == 0;
  if (!known)
    return tcmma_fail(err, TCMMA_INVALID, "C++ dialect '%s': expected c++03, c++11, c++14, c++17 or c++20",
                      o->std);
  for (size_t i = 0; i < o->n_extra; i++) {
    const char *x = o->extra[i] ? o->extra[i] : "";
    while (*x == ' ' || *x == '\t') x++;
    if (strncmp(x, "--gpu-architecture", 18) == 0 || strncmp(x, "-arch", 5) == 0)
      return tcmma_fail(err, TCMMA_INVALID,
                        "extra option '%s' names an arch: give it as the arch of the compile "
                        "(--arch on the CLI, opts.arch in the API)",
                        x);
  }
  return TCMMA_OK;
}

/* Whether the loaded NVRTC knows --minimal (added in CUDA 12.4). */
static bool minimal_known(void) {
  const tcmma_nvrtc_info *info = tcmma__nvrtc_info();
  return info && (info->major > 12 || (info->major == 12 && info->minor >= 4));
}

static tcmma_status build_options(const char *source, size_t len, const tcmma_compile_opts *o,
                                  tcmma_program *p, tcmma_error *err) {
  tcmma_status st = check_opts(o, err);
  if (st != TCMMA_OK) return st;
  tcmma_arch_options arch;
  st = o->arch ? explicit_arch(o, &arch, err)
               : tcmma_gpu_arch_options(source, len, o->cc, o->target, &arch, err);
  if (st != TCMMA_OK) return st;
  char option[96];
  if (o->sass) {
    int a = arch.arch;
    char suffix = arch.suffix;
    if (a == 0) { /* no marker: NVRTC's lowest arch, its own default */
      tcmma_arch_support support;
      if ((st = tcmma_nvrtc_support(&support, err)) != TCMMA_OK) return st;
      a = tcmma_arch_support_lowest(&support);
    }
    tcmma__arch_option(option, sizeof option, true, a, suffix);
  } else {
    snprintf(option, sizeof option, "%s", arch.option);
  }
  bool ok = add_option(p, option);
  /* ptxas's info log: registers, spills and shared bytes of the CUBIN */
  if (o->sass) ok = ok && add_option(p, "--ptxas-options=-v");
  /* every -I directory and the toolkit's own, however many */
  size_t n_dirs = tcmma_compile_include_dirs(o, NULL, 0);
  const char **dirs = malloc((n_dirs ? n_dirs : 1) * sizeof *dirs);
  ok = ok && dirs;
  if (dirs) tcmma_compile_include_dirs(o, dirs, n_dirs);
  for (size_t i = 0; ok && i < n_dirs; i++) {
    char *inc = malloc(strlen(dirs[i]) + 3);
    if (inc) sprintf(inc, "-I%s", dirs[i]);
    ok = inc && add_option(p, inc);
    free(inc);
  }
  free(dirs);
  for (size_t i = 0; ok && i < o->n_defines; i++) {
    char *def = malloc(strlen(o->defines[i]) + 3);
    if (def) sprintf(def, "-D%s", o->defines[i]);
    ok = def && add_option(p, def);
    free(def);
  }
  if (ok && o->std) {
    snprintf(option, sizeof option, "--std=%s", o->std);
    ok = add_option(p, option);
  }
  if (o->fmad_false) ok = ok && add_option(p, "--fmad=false");
  if (o->debug) ok = ok && add_option(p, "-G");
  if (o->minimal && minimal_known()) ok = ok && add_option(p, "--minimal");
  for (size_t i = 0; i < o->n_extra; i++)
    ok = ok && (o->extra[i] ? add_option(p, o->extra[i]) : true);
  return ok ? TCMMA_OK : tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for the option list");
}

/* Reads the PTX's .target arch into p and checks that the .target holds
 * every instruction (NVRTC does not: PTX for compute_75 may carry inline
 * mma.sync m16n8k16, which only ptxas or the driver would refuse). A PTX the
 * reader cannot read leaves target_arch "" (NVRTC's own output: not
 * expected, and no reason to fail the compile). */
static tcmma_status check_ptx(tcmma_program *p, tcmma_error *err) {
  tcmma_ptx_info info;
  tcmma_status st = TCMMA_OK;
  if (tcmma_ptx_parse(p->ptx, p->ptx_len, &info, NULL) == TCMMA_OK && info.target) {
    snprintf(p->target_arch, sizeof p->target_arch, "%s", info.target);
    tcmma_error why;
    if (tcmma_ptx_check_target(&info, &why) == TCMMA_FLOOR)
      st = tcmma_fail(err, TCMMA_FLOOR, "the PTX needs more than its .target holds: %s",
                      why.message);
  }
  tcmma_ptx_info_free(&info);
  return st;
}

tcmma_status tcmma_compile(const char *source, size_t len, const tcmma_compile_opts *opts,
                           tcmma_program *out, tcmma_error *err) {
  tcmma_status st = tcmma__compile_keeping_figures(source, len, opts, out, err);
  if (out && out->log) tcmma__compile_ptxas_drop(out->log);
  return st;
}

tcmma_status tcmma__compile_keeping_figures(const char *source, size_t len,
                                            const tcmma_compile_opts *opts, tcmma_program *out,
                                            tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "no output program");
  memset(out, 0, sizeof *out);
  if (!source) return tcmma_fail(err, TCMMA_INVALID, "NULL source");
  const char *nul = memchr(source, '\0', len);
  if (nul)
    return tcmma_fail(err, TCMMA_INVALID, "source has a NUL byte at offset %zu of %zu",
                      (size_t)(nul - source), len);
  /* the caller's options as this library's whole struct (an older, smaller
   * one gets the defaults for the rest); NULL: the defaults */
  tcmma_compile_opts taken = tcmma_compile_opts_default();
  tcmma_status st = opts ? take_opts(&taken, opts, err) : TCMMA_OK;
  if (st != TCMMA_OK) return st;
  const tcmma_compile_opts *o = &taken;
  if ((st = tcmma__cache_check_setting(err)) != TCMMA_OK) return st;
  tcmma_nvrtc_info info;
  if ((st = tcmma_nvrtc_facts(&info, err)) != TCMMA_OK) return st;
  out->nvrtc_major = info.major, out->nvrtc_minor = info.minor;
  out->name = tcmma__compile_strdup(o->name && *o->name ? o->name : "tcmma.cu");
  out->log = tcmma__compile_strdup("");
  if (!out->name || !out->log) {
    tcmma_program_free(out);
    return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for a program");
  }
  if ((st = build_options(source, len, o, out, err)) != TCMMA_OK) {
    if (st != TCMMA_COMPILE) tcmma_program_free(out);
    return st;
  }
  unsigned char key[32];
  char note[512], why[560], nvcc[PATH_MAX + 64];
  if (o->nvcc && !tcmma__nvcc_identity(o->nvcc, nvcc, sizeof nvcc)) {
    tcmma_program_free(out);
    return tcmma__nvcc_missing(o->nvcc, err);
  }
  int keyed = cache_key(out, source, len, o->nvcc ? nvcc : NULL, key, note, sizeof note);
  if (keyed < 0) {
    tcmma_program_free(out);
    return tcmma_fail(err, TCMMA_IO, "%s", note);
  }
  bool cacheable = keyed == 1;
  snprintf(why, sizeof why, "not cached: %s", note);
  if (!cacheable && !(out->cache_note = tcmma__compile_strdup(why))) {
    tcmma_program_free(out);
    return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for a program");
  }
  tcmma_status cached;
  char message[TCMMA_ERROR_MAX];
  if (cacheable && tcmma__cache_lookup(key, out, &cached, message, sizeof message)) {
    out->cache_hit = true; /* the entry kept ptxas's figures */
    if (cached != TCMMA_OK) return tcmma_fail(err, cached, "%s", message);
    return check_ptx(out, err);
  }
  free(out->log);
  out->log = NULL;
  bool rejected = false;
  tcmma_error raw;
  const char *const *list = (const char *const *)out->options;
  st = o->nvcc ? tcmma__nvcc_compile_raw(o->nvcc, source, len, out->name, list, out->n_options,
                                         o->sass, out, &rejected, &raw)
               : tcmma__nvrtc_compile_raw(source, len, out->name, list, out->n_options, o->sass,
                                          out, &rejected, &raw);
  /* the key holds the facts' NVRTC: store only what that very one compiled */
  cacheable = cacheable && tcmma__nvrtc_facts_current();
  if (st != TCMMA_OK) {
    if (cacheable && rejected) tcmma__cache_store(key, out, st, raw.message);
    if (err) *err = raw;
    if (st != TCMMA_COMPILE) tcmma_program_free(out);
    return st;
  }
  if (cacheable) tcmma__cache_store(key, out, TCMMA_OK, NULL);
  st = check_ptx(out, err);
  tcmma__arch_target_scope_record(out);
  return st;
}

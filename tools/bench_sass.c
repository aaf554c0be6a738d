/* nvdisasm's text read as instructions (tools/bench_sass.h). nvdisasm -c
 * writes a function as
 *   .section .text.NAME,"ax",@progbits
 *   ...
 *   .L_x_1:
 *           /-*1110*-/      @P2 BRA `(.L_x_0) ;
 * (without the dashes): labels on lines of their own, an instruction after
 * its offset comment, a guard predicate before the opcode. */
#include "bench_sass.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name, *what;
} classes[] = {
#define BENCH_SASS_CLASS(id, name, what) {name, what},
#define BENCH_SASS_OP(op, cls)
#include "bench_sass.def"
#undef BENCH_SASS_CLASS
#undef BENCH_SASS_OP
};

static const struct {
  const char *op;
  bench_sass_class cls;
} ops[] = {
#define BENCH_SASS_CLASS(id, name, what)
#define BENCH_SASS_OP(op, cls) {op, BENCH_SASS_##cls},
#include "bench_sass.def"
#undef BENCH_SASS_CLASS
#undef BENCH_SASS_OP
};

const char *bench_sass_class_name(bench_sass_class c) {
  return (unsigned)c < BENCH_SASS_NCLASS ? classes[c].name : "?";
}

const char *bench_sass_class_what(bench_sass_class c) {
  return (unsigned)c < BENCH_SASS_NCLASS ? classes[c].what : "?";
}

bench_sass_class bench_sass_classify(const char *opcode) {
  size_t len = strcspn(opcode, ". \t");
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strlen(ops[i].op) == len && strncmp(ops[i].op, opcode, len) == 0) return ops[i].cls;
  return BENCH_SASS_OTHER;
}

/* A label of the function and the instruction it stands before. */
typedef struct {
  char name[32];
  size_t at;
} label;

typedef struct {
  bench_sass *s;
  label *labels;
  size_t n_labels, cap_labels, cap;
  char (*wants)[32]; /* each instruction's branch label ("" none) */
} parse_state;

/* One instruction line (offset comment, [@P] OP operands ;) into st. */
static bool add_insn(parse_state *st, const char *line) {
  const char *p = strstr(line, "/*");
  char *end;
  unsigned long addr = strtoul(p + 2, &end, 16);
  if (end == p + 2 || strncmp(end, "*/", 2) != 0) return true; /* not an instruction */
  p = end + 2;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '@') p += strcspn(p, " \t"); /* the guard */
  while (isspace((unsigned char)*p)) p++;
  if (!*p || *p == '/') return true;
  if (st->s->n == st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 256;
    bench_sass_insn *v = realloc(st->s->v, cap * sizeof *v);
    char(*w)[32] = realloc(st->wants, cap * sizeof *w);
    if (v) st->s->v = v;
    if (w) st->wants = w;
    if (!v || !w) return false;
    st->cap = cap;
  }
  bench_sass_insn *in = &st->s->v[st->s->n];
  size_t len = strcspn(p, " \t;");
  snprintf(in->op, sizeof in->op, "%.*s", (int)len, p);
  in->addr = addr, in->cls = bench_sass_classify(in->op), in->target = -1;
  char *w = st->wants[st->s->n++];
  w[0] = '\0';
  size_t rest = strcspn(p, "\n");
  const char *t = strstr(p, "`(");
  if (t && t < p + rest) snprintf(w, 32, "%.*s", (int)strcspn(t + 2, ")\n"), t + 2);
  return true;
}

static bool add_label(parse_state *st, const char *line) {
  if (st->n_labels == st->cap_labels) {
    size_t cap = st->cap_labels ? st->cap_labels * 2 : 32;
    label *l = realloc(st->labels, cap * sizeof *l);
    if (!l) return false;
    st->labels = l, st->cap_labels = cap;
  }
  label *l = &st->labels[st->n_labels++];
  snprintf(l->name, sizeof l->name, "%.*s", (int)strcspn(line, ":"), line);
  l->at = st->s->n;
  return true;
}

/* Where function name's section starts in text (NULL name: the first). */
static const char *find_section(const char *text, const char *name) {
  for (const char *p = strstr(text, ".section"); p; p = strstr(p + 1, ".section")) {
    const char *q = p + strlen(".section");
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, ".text.", 6) != 0) continue;
    q += 6;
    size_t len = strcspn(q, ",\n \t");
    if (!name || (strlen(name) == len && strncmp(q, name, len) == 0)) return q + len;
  }
  return NULL;
}

/* Whether an opcode is op with or without modifiers. */
static bool is_op(const char *opcode, const char *op) {
  size_t n = strlen(op);
  return strncmp(opcode, op, n) == 0 && (opcode[n] == '.' || !opcode[n]);
}

/* Resolves every branch's label to an instruction index (a call to another
 * function, or a return, keeps target -1). */
static bool resolve(parse_state *st, char *why, size_t cap) {
  for (size_t i = 0; i < st->s->n; i++) {
    if (!st->wants[i][0]) continue;
    for (size_t j = 0; j < st->n_labels && st->s->v[i].target < 0; j++)
      if (strcmp(st->labels[j].name, st->wants[i]) == 0)
        st->s->v[i].target = (long)st->labels[j].at;
    /* a call into another function and its return (ptxas's tcgen05
     * guardrail traps on sm_10x, $__internal_..._guardrail_trap_..., placed
     * in the kernel's section after it) leave this one */
    if (st->s->v[i].target < 0 && (is_op(st->s->v[i].op, "CALL") || is_op(st->s->v[i].op, "RET")))
      continue;
    if (st->s->v[i].target < 0 || (size_t)st->s->v[i].target >= st->s->n)
      return snprintf(why, cap, "the %s at 0x%lx branches to %s, not an instruction of the "
                      "function", st->s->v[i].op, st->s->v[i].addr, st->wants[i]), false;
  }
  return true;
}

bool bench_sass_parse(const char *text, const char *name, bench_sass *out, char *why, size_t cap) {
  memset(out, 0, sizeof *out);
  const char *p = find_section(text, name);
  if (!p)
    return snprintf(why, cap, "no code section .text.%s in the disassembly", name ? name : "*"),
           false;
  parse_state st = {.s = out};
  bool ok = true;
  while (ok && (p = strchr(p, '\n')) && *++p) {
    const char *line = p;
    while (*line == ' ' || *line == '\t') line++;
    if ((strncmp(line, ".section", 8) == 0 && isspace((unsigned char)line[8])) ||
        strncmp(line, "//---", 5) == 0)
      break; /* the next function's section (.sectioninfo is this one's) */
    size_t len = strcspn(line, "\n");
    if (strncmp(line, "/*", 2) == 0) ok = add_insn(&st, line);
    else if (strncmp(line, ".L", 2) == 0 && len && line[len - 1] == ':') ok = add_label(&st, line);
  }
  if (!ok) snprintf(why, cap, "out of memory");
  else if (!out->n) ok = false, snprintf(why, cap, "function %s has no instruction", name ? name : "*");
  else ok = resolve(&st, why, cap);
  free(st.labels);
  free(st.wants);
  if (!ok) bench_sass_free(out);
  return ok;
}

void bench_sass_free(bench_sass *s) {
  free(s->v);
  s->v = NULL, s->n = 0;
}


long bench_sass_count_op(const bench_sass *s, size_t first, size_t last, const char *op) {
  long n = 0;
  for (size_t i = first; i <= last && i < s->n; i++) n += is_op(s->v[i].op, op);
  return n;
}

long bench_sass_k_waits(const bench_sass *s, size_t first, size_t last) {
  return bench_sass_count_op(s, first, last, "BAR") +
         bench_sass_count_op(s, first, last, "SYNCS.PHASECHK");
}

/* Whether v[first..last] holds an mma and a k tile's wait. */
static bool holds_mma_and_bar(const bench_sass *s, size_t first, size_t last) {
  bool mma = false;
  for (size_t i = first; i <= last; i++) mma |= s->v[i].cls == BENCH_SASS_MMA;
  return mma && bench_sass_k_waits(s, first, last) > 0;
}

/* Whether v[i] is a back edge whose loop holds an mma and a BAR, and no
 * EXIT: a jump back from past the kernel's exit (the mbarrier try_wait's
 * retry block, which ptxas places after it) is no loop of its own. */
static bool candidate(const bench_sass *s, size_t i) {
  long t = s->v[i].target;
  return t >= 0 && (size_t)t <= i && holds_mma_and_bar(s, (size_t)t, i) &&
         bench_sass_count_op(s, (size_t)t, i, "EXIT") == 0;
}

/* The innermost loops holding an mma and a BAR (none of them inside
 * another's body); of those the one with the most barriers, the k tiles a
 * trip (a ring unrolled by its stages, beside the loop that runs its last
 * k tiles one a trip), then the shortest. */
bool bench_sass_main_loop(const bench_sass *s, size_t *first, size_t *last) {
  bool found = false;
  long best_bars = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (!candidate(s, i)) continue;
    size_t t = (size_t)s->v[i].target;
    bool inner = true;
    for (size_t j = t; j < i && inner; j++)
      inner = !(candidate(s, j) && (size_t)s->v[j].target >= t);
    if (!inner) continue;
    long bars = bench_sass_k_waits(s, t, i);
    if (!found || bars > best_bars || (bars == best_bars && i - t < *last - *first))
      *first = t, *last = i, best_bars = bars, found = true;
  }
  return found;
}

bool bench_sass_skipped_block(const bench_sass *s, size_t first, size_t last, bench_sass_class cls,
                              size_t *block_first, size_t *block_last) {
  for (size_t i = first; i <= last && i < s->n; i++) {
    long t = s->v[i].target;
    if (t < 0 || (size_t)t <= i + 1 || (size_t)t > last) continue; /* not a forward skip */
    for (size_t j = i + 1; j < (size_t)t; j++)
      if (s->v[j].cls == cls) return *block_first = i + 1, *block_last = (size_t)t - 1, true;
  }
  return false;
}

void bench_sass_count(const bench_sass *s, size_t first, size_t last,
                      long counts[BENCH_SASS_NCLASS]) {
  for (int c = 0; c < BENCH_SASS_NCLASS; c++) counts[c] = 0;
  for (size_t i = first; i <= last && i < s->n; i++) counts[s->v[i].cls]++;
}

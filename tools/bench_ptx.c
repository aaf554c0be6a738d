/* tcmma bench ptx: reading a large PTX module with `tcmma ptx` against
 * `grep -c` on the very same file, in the same run. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "cli_input.h"
#include "tcmma/tcmma.h"

#ifndef TCMMA_SRC_ROOT
#define TCMMA_SRC_ROOT "."
#endif

static const char help[] =
    "usage: tcmma bench ptx [FILE] [--mb N] [--repeat N] [--json]\n\n"
    "Builds a PTX module of at least N MiB (default 64) by repeating the body of FILE\n"
    "(everything after its .address_size line; default: the largest module of the\n"
    "source tree's corpus, tests/data/ptx/nvcc_cute_mma_tma_2sm_sm100a.ptx) under its\n"
    "header, writes it to a scratch file, and times, each repeated (default 5 times):\n"
    "  grep       `grep -c ';' FILE` in a fresh process (the line counter's speed; its\n"
    "             output goes to a file: to /dev/null GNU grep stops at the first match)\n"
    "  grep_mma   `grep -c mma.sync FILE`, the same way (a literal search)\n"
    "  ptx        `tcmma ptx FILE --json` in a fresh process (reading the file included)\n"
    "  parse      tcmma_ptx_parse of the text already in memory, in this process\n"
    "and prints medians (CPU and wall seconds, MB/s) and tcmma ptx's throughput as a\n"
    "share of each grep's.\n"
    "--json  {\"file\", \"bytes\", \"repeat\", \"grep_s\", \"grep_mma_s\", \"ptx_s\", \"parse_s\"\n"
    "        (CPU), \"wall\": {the same}, \"grep_mb_s\", \"grep_mma_mb_s\", \"ptx_mb_s\",\n"
    "        \"parse_mb_s\", \"ratio\" (tcmma ptx over grep -c ';'), \"ratio_mma\"}\n"
    "Exit status: 0 measured; 1 the file is not PTX or a run failed; 2 usage error.\n";

#define DEFAULT_FILE TCMMA_SRC_ROOT "/tests/data/ptx/nvcc_cute_mma_tma_2sm_sm100a.ptx"

/* FILE's header and body repeated to at least mb MiB; NULL after a message. */
static char *build_module(const char *file, long mb, size_t *len) {
  size_t n;
  char *src = cli_read_input("bench", file, &n);
  if (!src) return NULL;
  char *body = strstr(src, ".address_size");
  body = body ? strchr(body, '\n') : NULL;
  if (!body) {
    free(src);
    cli_fail("bench", "%s: no .address_size line: not a PTX module to repeat", file);
    return NULL;
  }
  body++;
  size_t head = (size_t)(body - src), blen = n - head, want = (size_t)mb << 20;
  size_t copies = blen ? want / blen + 1 : 1;
  char *text = malloc(head + copies * blen + 1);
  if (text) {
    memcpy(text, src, head);
    for (size_t i = 0; i < copies; i++) memcpy(text + head + i * blen, body, blen);
    *len = head + copies * blen;
    text[*len] = '\0';
  } else {
    cli_fail("bench", "out of memory for %ld MiB", mb);
  }
  free(src);
  return text;
}

/* The first grep on PATH into buf. */
static bool find_grep(char *buf, size_t cap) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t n = strcspn(p, ":");
    int w = snprintf(buf, cap, "%.*s/grep", (int)n, p);
    if (w > 0 && (size_t)w < cap && access(buf, X_OK) == 0) return true;
    p += n + (p[n] == ':');
  }
  return false;
}

enum { GREP, GREP_MMA, PTX, PARSE, MODES };
static const char *const key[MODES] = {"grep", "grep_mma", "ptx", "parse"};

/* What the command line asks of bench ptx. */
typedef struct {
  long mb, repeat;
  bool json;
  const char *file; /* NULL: DEFAULT_FILE */
} ptx_opts;

/* The options, or false with *rc the exit status (help: CLI_OK). */
static bool parse_ptx_opts(int argc, char **argv, ptx_opts *o, int *rc) {
  *o = (ptx_opts){.mb = 64, .repeat = 5};
  *rc = CLI_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (cli_is_help(argv[i])) return fputs(help, stdout), *rc = CLI_OK, false;
    if (strcmp(argv[i], "--json") == 0) o->json = true;
    else if (strcmp(argv[i], "--mb") == 0) {
      if (!(v = cli_value("bench", argc, argv, &i)) ||
          !cli_int("bench", "--mb", v, 1, 512, &o->mb))
        return false;
    } else if (strcmp(argv[i], "--repeat") == 0) {
      if (!(v = cli_value("bench", argc, argv, &i)) ||
          !cli_int("bench", "--repeat", v, 1, 64, &o->repeat))
        return false;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return *rc = cli_usage("bench", "unknown option '%s' of bench ptx: expected --mb, --repeat "
                             "or --json", argv[i]), false;
    } else if (o->file) {
      return *rc = cli_usage("bench", "extra argument '%s': bench ptx takes one FILE", argv[i]),
             false;
    } else {
      o->file = argv[i];
    }
  }
  return true;
}

/* Times each mode repeat times over the module text (len bytes, also at
 * path), CPU and wall seconds per run; both processes write to out_fd:
 * GNU grep stops at the first match when its output is /dev/null, which
 * would measure nothing. Returns CLI_OK or the failure's status. */
static int time_modes(const char *grep, const char *path, const char *text, size_t len,
                      int out_fd, long repeat, double cpu[][64], double wall[][64]) {
  int rc = CLI_OK;
  for (int r = 0; rc == CLI_OK && r < repeat; r++) {
    bench_time t;
    const char *g[] = {"grep", "-c", ";", path, NULL};
    /* grep -c exits 1 when nothing matches; the module always has a ';' */
    if (!bench_spawn(grep, g, (const char *const[]){"LC_ALL=C", NULL}, out_fd, &t))
      rc = cli_fail("bench", "grep -c failed on %s", path);
    cpu[GREP][r] = t.cpu, wall[GREP][r] = t.wall;
    /* the module may hold no mma.sync: grep -c then exits 1, which is no failure */
    const char *gm[] = {"grep", "-c", "mma.sync", path, NULL};
    t = (bench_time){0};
    bench_spawn(grep, gm, (const char *const[]){"LC_ALL=C", NULL}, out_fd, &t);
    cpu[GREP_MMA][r] = t.cpu, wall[GREP_MMA][r] = t.wall;
    const char *p[] = {"tcmma", "ptx", path, "--json", NULL};
    if (!bench_spawn(NULL, p, NULL, out_fd, &t))
      rc = cli_fail("bench", "tcmma ptx failed on %s", path);
    cpu[PTX][r] = t.cpu, wall[PTX][r] = t.wall;
    tcmma_ptx_info info;
    tcmma_error err;
    bench_time t0 = bench_now();
    if (tcmma_ptx_parse(text, len, &info, &err) != TCMMA_OK)
      rc = cli_fail("bench", "tcmma_ptx_parse: %s", err.message);
    t = bench_since(t0);
    tcmma_ptx_info_free(&info);
    cpu[PARSE][r] = t.cpu, wall[PARSE][r] = t.wall;
  }
  return rc;
}

/* The medians c (CPU) and w (wall) of each mode, their MB/s, and grep's
 * CPU time over tcmma ptx's, as JSON or a table. */
static void print_ptx_report(const ptx_opts *o, size_t len, const double *c, const double *w,
                             const double *mbs) {
  double ratio = c[PTX] > 0 ? c[GREP] / c[PTX] : 0, ratio_mma = c[PTX] > 0 ? c[GREP_MMA] / c[PTX] : 0;
  const char *file = o->file ? o->file : DEFAULT_FILE;
  if (o->json) {
    json_writer jw;
    json_init(&jw, stdout);
    json_begin_object(&jw);
    json_key(&jw, "file"), json_string(&jw, file);
    json_key(&jw, "bytes"), json_int(&jw, (long long)len);
    json_key(&jw, "repeat"), json_int(&jw, o->repeat);
    char k[32];
    for (int m = 0; m < MODES; m++) {
      snprintf(k, sizeof k, "%s_s", key[m]);
      json_key(&jw, k), json_double(&jw, c[m]);
    }
    json_key(&jw, "wall"), json_begin_object(&jw);
    for (int m = 0; m < MODES; m++) {
      snprintf(k, sizeof k, "%s_s", key[m]);
      json_key(&jw, k), json_double(&jw, w[m]);
    }
    json_end_object(&jw);
    for (int m = 0; m < MODES; m++) {
      snprintf(k, sizeof k, "%s_mb_s", key[m]);
      json_key(&jw, k), json_double(&jw, mbs[m]);
    }
    json_key(&jw, "ratio"), json_double(&jw, ratio);
    json_key(&jw, "ratio_mma"), json_double(&jw, ratio_mma);
    json_end_object(&jw);
    json_finish(&jw);
    return;
  }
  printf("bench ptx: %zu bytes (%s repeated), median of %ld\n", len, file, o->repeat);
  static const char *const text_of[MODES] = {"grep -c ';', fresh process",
                                             "grep -c mma.sync, fresh process",
                                             "tcmma ptx --json, fresh process",
                                             "tcmma_ptx_parse, in memory"};
  printf("%-34s %9s %9s %10s\n", "", "CPU s", "wall s", "MB/s (CPU)");
  for (int m = 0; m < MODES; m++)
    printf("%-34s %9.4f %9.4f %10.1f\n", text_of[m], c[m], w[m], mbs[m]);
  printf("tcmma ptx reads at %.2fx grep -c ';' and %.2fx grep -c mma.sync (CPU throughput)\n",
         ratio, ratio_mma);
}

int bench_ptx(int argc, char **argv) {
  ptx_opts o;
  int rc;
  if (!parse_ptx_opts(argc, argv, &o, &rc)) return rc;
  char grep[4096], dir[4096], path[4200];
  if (!find_grep(grep, sizeof grep)) return cli_fail("bench", "no grep on PATH to compare with");
  size_t len;
  char *text = build_module(o.file ? o.file : DEFAULT_FILE, o.mb, &len);
  if (!text) return CLI_FAIL;
  if (!bench_tmpdir(dir, sizeof dir)) return free(text), cli_fail("bench", "no scratch directory");
  snprintf(path, sizeof path, "%s/big.ptx", dir);
  rc = bench_write_file(path, text, len) ? CLI_OK : cli_fail("bench", "cannot write %s", path);
  char out[4300];
  snprintf(out, sizeof out, "%s/out.txt", dir);
  int out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0 && rc == CLI_OK) rc = cli_fail("bench", "cannot write %s", out);
  double cpu[MODES][64], wall[MODES][64];
  if (rc == CLI_OK) rc = time_modes(grep, path, text, len, out_fd, o.repeat, cpu, wall);
  if (out_fd >= 0) close(out_fd);
  bench_rmdir(dir);
  free(text);
  if (rc != CLI_OK) return rc;
  double c[MODES], w[MODES], mbs[MODES];
  for (int m = 0; m < MODES; m++) {
    c[m] = bench_median(cpu[m], (size_t)o.repeat), w[m] = bench_median(wall[m], (size_t)o.repeat);
    mbs[m] = c[m] > 0 ? (double)len / c[m] / 1e6 : 0;
  }
  print_ptx_report(&o, len, c, w, mbs);
  return CLI_OK;
}

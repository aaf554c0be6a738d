/* tcmma compile: NVRTC through the cache; writes the PTX (or CUBIN). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "cli_arch.h"
#include "cli_input.h"
#include "cli_target.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma compile FILE|- [--cc N] [--target floor|native] [--arch ARCH] [--sass]\n"
    "                     [-I DIR]... [-D NAME[=VALUE]]... [--std c++NN] [--fmad-false]\n"
    "                     [-G] [--minimal] [--allow-empty] [--nvcc] [-o OUT] [--json]\n"
    "                     [-- NVRTC-OPTION...]\n\n"
    "Compiles FILE with NVRTC at the architecture its markers need (see tcmma options),\n"
    "through the cache ($TCMMA_CACHE_DIR, $XDG_CACHE_HOME/tcmma or ~/.cache/tcmma;\n"
    "TCMMA_CACHE=0: memory only; tcmma cache shows it), and prints the options, the PTX\n"
    ".target, the instruction census and where the output went. The toolkit's\n"
    "include/ and include/cccl are searched after the -I directories. The source's\n"
    "\"quoted\" #includes are found next to FILE (for -, in the current directory);\n"
    "the cache key covers every file they read, and a source whose includes tcmma\n"
    "cannot follow for certain (#include MACRO) is compiled fresh with a note.\n"
    "NVRTC's log goes to stderr, once.\n"
    "  --cc N        the device's compute capability; native without it asks the CUDA\n"
    "                driver for the lowest cc among attached devices\n"
    "  --target T    floor or native (default: $TCMMA_PTX_TARGET, else floor)\n"
    "  --arch ARCH   compute_N or sm_N, with an optional a or f (compute_90a, sm_100f):\n"
    "                this arch instead of the markers' (one NVRTC compiles for); sm_\n"
    "                writes a CUBIN\n"
    "  --sass        compile for sm_XX: ptxas checks the PTX and a CUBIN is written\n"
    "  -I DIR        search DIR for #include files (also -IDIR)\n"
    "  -D NAME[=V]   define a macro (also -DNAME[=V])\n"
    "  --std c++NN   the C++ dialect: c++03, c++11, c++14, c++17 or c++20\n"
    "  --fmad-false  the contraction pin (--fmad=false)\n"
    "  -G            device debug (.target gains \", debug\")\n"
    "  --minimal     NVRTC's --minimal (12.4 on): no texture or surface functions, no\n"
    "                cuda* runtime functions or types, no launches from device code;\n"
    "                a small kernel without them compiles faster\n"
    "  -o OUT        output path (default FILE with .ptx, or .cubin with --sass;\n"
    "                - writes the PTX to stdout); an OUT that already holds the output\n"
    "                keeps its bytes and gets a new mtime; an OUT that is FILE itself\n"
    "                (also through a link) is refused\n"
    "  --allow-empty a kernel compiled away at the chosen arch (its body only ret/exit,\n"
    "                or a trap/brkpt, while a higher arch gives it work: a header\n"
    "                library's atom below its arch) is a loud warning, not a failure\n"
    "  --nvcc        compile with the toolkit's nvcc, not NVRTC: a whole program (host\n"
    "                code, host headers, nvcc-only options after --) to PTX, or a CUBIN\n"
    "                with --sass, through the same cache, records and .target check;\n"
    "                nvcc: $TCMMA_NVCC, else $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc\n"
    "  --json        the same facts as JSON\n"
    "  -- ...        every later argument is an NVRTC option, passed as given\n\n"
    "Exit status: 0 compiled; 1 NVRTC or ptxas rejected it, or the PTX needs more than\n"
    "its own .target holds (an instruction the markers did not show, or an --arch below\n"
    "it: the output is still written), or kernels were compiled away at the chosen arch\n"
    "(without --allow-empty; the output is still written); 2 usage error.\n";

/* FILE with its extension replaced by ext ("x.cu" -> "x.ptx"). */
static char *default_output(const char *file, const char *ext) {
  const char *base = strrchr(file, '/');
  const char *dot = strrchr(base ? base : file, '.');
  size_t stem = dot ? (size_t)(dot - file) : strlen(file);
  char *out = malloc(stem + strlen(ext) + 1);
  if (out) memcpy(out, file, stem), strcpy(out + stem, ext);
  return out;
}

/* Whether the regular file open at fd holds exactly data[0..n). */
static bool holds(int fd, const void *data, size_t n) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size != n)
    return false;
  char buf[16384];
  for (size_t at = 0; at < n;) {
    ssize_t got = pread(fd, buf, n - at < sizeof buf ? n - at : sizeof buf, (off_t)at);
    if (got <= 0 || memcmp(buf, (const char *)data + at, (size_t)got) != 0) return false;
    at += (size_t)got;
  }
  return true;
}

/* Whether path names the file input names (the same device and inode: a
 * hard link, a symlink, another spelling of the path). stdin and a path
 * that does not exist yet are never the input. */
static bool same_file(const char *input, const char *path) {
  struct stat in, out;
  if (strcmp(input, "-") == 0 || strcmp(path, "-") == 0) return false;
  return stat(input, &in) == 0 && stat(path, &out) == 0 && in.st_dev == out.st_dev &&
         in.st_ino == out.st_ino;
}

/* Writes data to path, or to stdout for "-". A file that already holds
 * exactly data only gets its mtime set, as a rewrite would: rewriting a file
 * in place truncates it, which ext4 answers with a flush at close (~0.15 ms,
 * most of a rebuild's cache hit). */
static bool write_output(const char *path, const void *data, size_t n) {
  if (strcmp(path, "-") != 0) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      bool same = holds(fd, data, n) && futimens(fd, NULL) == 0;
      close(fd);
      if (same) return true;
    }
  }
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, n, f) == n;
  if (f != stdout) ok = (fclose(f) == 0) && ok;
  else ok = (fflush(f) == 0) && ok;
  return ok;
}

static void json_report(const tcmma_program *p, const tcmma_ptx_info *ptx, const char *required,
                        const char *problem, const char *out_path, const char *away, bool nvcc) {
  char nvrtc[32];
  snprintf(nvrtc, sizeof nvrtc, "%d.%d", p->nvrtc_major, p->nvrtc_minor);
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "program"), json_string(&w, p->name);
  json_key(&w, "options"), json_begin_array(&w);
  for (size_t i = 0; i < p->n_options; i++) json_string(&w, p->options[i]);
  json_end_array(&w);
  json_key(&w, "compiler"), json_string(&w, nvcc ? "nvcc" : "nvrtc");
  json_key(&w, "nvrtc"), json_string(&w, nvrtc);
  tcmma_nvrtc_info lib; /* the facts: a cache hit never loads NVRTC, nor does its report */
  json_key(&w, "nvrtc_library");
  json_string(&w, tcmma_nvrtc_facts(&lib, NULL) == TCMMA_OK ? lib.library : NULL);
  json_key(&w, "target"), json_string(&w, p->target_arch[0] ? p->target_arch : NULL);
  json_key(&w, "modifiers"), json_begin_array(&w);
  for (size_t i = 0; ptx && i < ptx->modifier_count; i++) json_string(&w, ptx->modifiers[i]);
  json_end_array(&w);
  json_key(&w, "census"), json_begin_object(&w);
  for (size_t i = 0; ptx && i < ptx->census_count; i++)
    json_key(&w, ptx->census[i].opcode), json_int(&w, (long long)ptx->census[i].count);
  json_end_object(&w);
  json_key(&w, "required_target"), json_string(&w, required);
  json_key(&w, "target_problem"), json_string(&w, problem);
  json_key(&w, "compiled_away"), json_string(&w, away && away[0] ? away : NULL);
  json_key(&w, "cache_hit"), json_bool(&w, p->cache_hit);
  json_key(&w, "cache_note"), json_string(&w, p->cache_note);
  json_key(&w, "output"), json_string(&w, out_path);
  json_key(&w, "ptx_bytes"), json_int(&w, (long long)p->ptx_len);
  json_key(&w, "cubin_bytes"), json_int(&w, (long long)p->cubin_len);
  json_key(&w, "ptxas");
  if (p->ptxas_info) {
    json_begin_object(&w);
    json_key(&w, "registers"), json_int(&w, p->registers);
    json_key(&w, "spill_store_bytes"), json_int(&w, p->spill_store_bytes);
    json_key(&w, "spill_load_bytes"), json_int(&w, p->spill_load_bytes);
    json_key(&w, "stack_bytes"), json_int(&w, p->stack_bytes);
    json_key(&w, "shared_bytes"), json_int(&w, p->shared_bytes);
    json_end_object(&w);
  } else {
    json_null(&w);
  }
  json_end_object(&w);
  json_finish(&w);
}

/* The census of the tensor-core and copy instructions, the ones the PTX
 * feature table knows (a kernel's other opcodes are many and uninteresting). */
static void text_report(FILE *o, const tcmma_program *p, const tcmma_ptx_info *ptx,
                        const char *required, const char *problem, const char *out_path,
                        bool nvcc) {
  if (nvcc) fprintf(o, "program:  %s (nvcc, %s)\n", p->name, p->cache_hit ? "cache hit" : "compiled");
  else
    fprintf(o, "program:  %s (NVRTC %d.%d, %s)\n", p->name, p->nvrtc_major, p->nvrtc_minor,
            p->cache_hit ? "cache hit" : "compiled");
  fprintf(o, "options: ");
  for (size_t i = 0; i < p->n_options; i++) fprintf(o, " %s", p->options[i]);
  fprintf(o, "\ntarget:   %s", p->target_arch[0] ? p->target_arch : "(unreadable PTX)");
  for (size_t i = 0; ptx && i < ptx->modifier_count; i++)
    fprintf(o, "%s%s", i ? ", " : " (", ptx->modifiers[i]);
  fprintf(o, "%s\n", ptx && ptx->modifier_count ? ")" : "");
  if (required) fprintf(o, "requires: %s%s%s\n", required, problem ? ": " : "", problem ? problem : "");
  if (p->cubin)
    fprintf(o, "output:   %s (CUBIN, %zu bytes; PTX %zu bytes)\n", out_path, p->cubin_len,
            p->ptx_len);
  else
    fprintf(o, "output:   %s (PTX, %zu bytes)\n", out_path, p->ptx_len);
  if (p->ptxas_info)
    fprintf(o, "ptxas:    %d registers, %d bytes spill stores, %d bytes spill loads, %d bytes "
            "stack, %d bytes static shared\n", p->registers, p->spill_store_bytes,
            p->spill_load_bytes, p->stack_bytes, p->shared_bytes);
  if (!ptx) return;
  size_t shown = 0;
  for (size_t i = 0; i < ptx->census_count; i++)
    if (tcmma_ptx_feature_for(ptx->census[i].opcode)) {
      if (!shown++) fprintf(o, "census:   (tensor-core and async-copy instructions; tcmma ptx for all)\n");
      fprintf(o, "  %6zu  %s\n", ptx->census[i].count, ptx->census[i].opcode);
    }
  if (!shown)
    fprintf(o, "census:   %zu instructions, none from tables/ptx_features.def\n",
            ptx->instruction_count);
}

static int report(const tcmma_program *p, const char *out_path, bool json, const char *away,
                  bool nvcc) {
  tcmma_ptx_info info;
  tcmma_error why;
  bool read = tcmma_ptx_parse(p->ptx, p->ptx_len, &info, NULL) == TCMMA_OK;
  char required[48] = "";
  const char *problem = NULL;
  if (read) {
    tcmma_ptx_required_text(&info, required, sizeof required);
    if (tcmma_ptx_check_target(&info, &why) != TCMMA_OK) problem = why.message;
  }
  if (json)
    json_report(p, read ? &info : NULL, read ? required : NULL, problem, out_path, away, nvcc);
  else
    text_report(strcmp(out_path, "-") == 0 ? stderr : stdout, p, read ? &info : NULL,
                read ? required : NULL, problem, out_path, nvcc);
  tcmma_ptx_info_free(&info);
  return CLI_OK;
}

/* parse(): go on to compile, or help was printed (other values: exit codes) */
enum { GO_ON = -1, HELP_SHOWN = -2 };

typedef struct {
  bool json, allow_empty;
  const char *file, *out_path;
  tcmma_compile_opts opts;
  cli_list includes, defines, extra;
} args;

/* -I DIR / -IDIR (likewise -D): the value, or NULL after a usage message. */
static const char *attached(const char *flag, int argc, char **argv, int *i) {
  if (argv[*i][strlen(flag)]) return argv[*i] + strlen(flag);
  return cli_value("compile", argc, argv, i);
}

static int parse(int argc, char **argv, args *a) {
  for (int i = 1; i < argc; i++) {
    const char *v;
    tcmma_error err;
    if (strcmp(argv[i], "--") == 0) {
      for (i++; i < argc; i++)
        if (!cli_list_push(&a->extra, argv[i])) return cli_fail("compile", "out of memory");
      break;
    }
    if (cli_is_help(argv[i])) return fputs(help, stdout), HELP_SHOWN;
    if (strcmp(argv[i], "--json") == 0) a->json = true;
    else if (strcmp(argv[i], "--sass") == 0) a->opts.sass = true;
    else if (strcmp(argv[i], "--fmad-false") == 0) a->opts.fmad_false = true;
    else if (strcmp(argv[i], "-G") == 0) a->opts.debug = true;
    else if (strcmp(argv[i], "--minimal") == 0) a->opts.minimal = true;
    else if (strcmp(argv[i], "--allow-empty") == 0) a->allow_empty = true;
    else if (strcmp(argv[i], "--nvcc") == 0) a->opts.nvcc = "";
    else if (strcmp(argv[i], "--cc") == 0) {
      if (!(v = cli_value("compile", argc, argv, &i)) ||
          !cli_cc("compile", "--cc", v, &a->opts.cc))
        return CLI_USAGE;
    } else if (strcmp(argv[i], "--target") == 0) {
      if (!(v = cli_value("compile", argc, argv, &i)) ||
          !cli_target_option("compile", v, &a->opts.target))
        return CLI_USAGE;
    } else if (strcmp(argv[i], "--arch") == 0) {
      bool sass;
      if (!(v = cli_value("compile", argc, argv, &i))) return CLI_USAGE;
      if (cli_parse_arch(v, &a->opts.arch, &a->opts.arch_suffix, &sass, &err) != TCMMA_OK)
        return cli_usage("compile", "--arch: %s", err.message);
      a->opts.sass = a->opts.sass || sass;
    } else if (strcmp(argv[i], "--std") == 0 || strncmp(argv[i], "--std=", 6) == 0) {
      if (!(v = argv[i][5] == '=' ? argv[i] + 6 : cli_value("compile", argc, argv, &i)))
        return CLI_USAGE;
      a->opts.std = v;
    } else if (strncmp(argv[i], "-I", 2) == 0) {
      if (!(v = attached("-I", argc, argv, &i))) return CLI_USAGE;
      if (!cli_list_push(&a->includes, v)) return cli_fail("compile", "out of memory");
    } else if (strncmp(argv[i], "-D", 2) == 0) {
      if (!(v = attached("-D", argc, argv, &i))) return CLI_USAGE;
      if (!cli_list_push(&a->defines, v)) return cli_fail("compile", "out of memory");
    } else if (strcmp(argv[i], "-o") == 0) {
      if (!(a->out_path = cli_value("compile", argc, argv, &i))) return CLI_USAGE;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage("compile",
                       "unknown option '%s': expected --cc, --target, --arch, --sass, -I, -D, "
                       "--std, --fmad-false, -G, --minimal, --allow-empty, --nvcc, -o, --json or -- "
                       "NVRTC options",
                       argv[i]);
    } else if (a->file) {
      return cli_usage("compile", "extra argument '%s': expected one FILE", argv[i]);
    } else {
      a->file = argv[i];
    }
  }
  if (!a->file) return cli_usage("compile", "missing FILE (a CUDA source, or - for stdin)");
  if (a->out_path && strcmp(a->out_path, "-") == 0 && (a->opts.sass || a->json))
    return cli_usage("compile", "-o -: stdout takes the PTX only (not with --sass or --json)");
  a->opts.include_dirs = a->includes.items, a->opts.n_include_dirs = a->includes.count;
  a->opts.defines = a->defines.items, a->opts.n_defines = a->defines.count;
  a->opts.extra = a->extra.items, a->opts.n_extra = a->extra.count;
  return GO_ON;
}

/* NVRTC's log, once, on stderr: the options it ran with and the whole log. */
static void print_log(const tcmma_program *p, const char *file, bool rejected, bool nvcc) {
  if (!p->log || !p->log[0]) return;
  char who[32];
  if (nvcc) snprintf(who, sizeof who, "nvcc");
  else snprintf(who, sizeof who, "NVRTC %d.%d", p->nvrtc_major, p->nvrtc_minor);
  fprintf(stderr, "tcmma compile: %s %s %s with options:", who, rejected ? "rejected" : "compiled",
          p->name ? p->name : file);
  for (size_t i = 0; i < p->n_options; i++) fprintf(stderr, " %s", p->options[i]);
  size_t n = strlen(p->log);
  fprintf(stderr, "\n%s%s", p->log, p->log[n - 1] != '\n' ? "\n" : "");
}

static int compile_file(args *a) {
  /* the path as given: NVRTC looks for the source's "includes" in its
   * directory (stdin: the current one) */
  a->opts.name = strcmp(a->file, "-") == 0 ? "stdin.cu" : a->file;
  size_t len = 0;
  char *source = cli_read_input("compile", a->file, &len);
  if (!source) return CLI_FAIL;
  tcmma_program p;
  tcmma_error err;
  tcmma_status st = tcmma_compile(source, len, &a->opts, &p, &err);
  char away[1024] = "";
  tcmma_error away_err;
  tcmma_status empty = st == TCMMA_OK && p.ptx ? tcmma_check_compiled_away(
                           source, len, &a->opts, &p, away, sizeof away, &away_err)
                                                : TCMMA_OK;
  free(source);
  if (empty == TCMMA_FLOOR && a->allow_empty)
    fprintf(stderr, "tcmma compile: WARNING (--allow-empty): %s\n", away_err.message);
  const char *warning = tcmma_cache_warning();
  if (warning) fprintf(stderr, "tcmma compile: warning: %s\n", warning);
  if (p.cache_note) fprintf(stderr, "tcmma compile: note: %s\n", p.cache_note);
  print_log(&p, a->file, st == TCMMA_COMPILE, a->opts.nvcc != NULL);
  if (st == TCMMA_COMPILE && p.log && p.log[0]) { /* the log said it all, but not why */
    const char *hint = strstr(err.message, ". Hint: ");
    if (hint) fprintf(stderr, "tcmma compile: hint: %s\n", hint + 8);
    cli_note_failure("%s", err.message);
    tcmma_program_free(&p);
    return CLI_FAIL;
  }
  /* TCMMA_FLOOR with PTX: it compiled, but needs more than its .target
   * holds (written, then failed); without: nothing compiled, nothing to write */
  if ((st != TCMMA_OK && st != TCMMA_FLOOR) || !p.ptx) {
    tcmma_program_free(&p);
    return cli_fail("compile", "%s", st != TCMMA_OK ? err.message : "NVRTC gave no PTX");
  }
  char *owned = NULL;
  const char *out_path = a->out_path;
  if (!out_path)
    out_path = owned = default_output(strcmp(a->file, "-") == 0 ? "stdin.cu" : a->file,
                                      p.cubin ? ".cubin" : ".ptx");
  int rc = CLI_OK;
  if (!out_path)
    rc = cli_fail("compile", "out of memory");
  else if (same_file(a->file, out_path))
    rc = cli_fail("compile", "the output '%s' is the input '%s' (the same file): writing it "
                  "would replace the source; choose another -o", out_path, a->file);
  else if (!(p.cubin ? write_output(out_path, p.cubin, p.cubin_len)
                     : write_output(out_path, p.ptx, p.ptx_len)))
    rc = cli_fail("compile", "cannot write '%s': %s", out_path, strerror(errno));
  else
    rc = report(&p, out_path, a->json, away, a->opts.nvcc != NULL);
  if (rc == CLI_OK && st == TCMMA_FLOOR) rc = cli_fail("compile", "%s", err.message);
  if (rc == CLI_OK && empty == TCMMA_FLOOR && !a->allow_empty)
    rc = cli_fail("compile", "%s (--allow-empty: write it with a warning)", away_err.message);
  free(owned);
  tcmma_program_free(&p);
  return rc;
}

int cmd_compile(int argc, char **argv) {
  args a = {.opts = TCMMA_COMPILE_OPTS_INIT()};
  int rc = parse(argc, argv, &a);
  if (rc == GO_ON) rc = compile_file(&a);
  else if (rc == HELP_SHOWN) rc = CLI_OK;
  free(a.includes.items), free(a.defines.items), free(a.extra.items);
  return rc;
}

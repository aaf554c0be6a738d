/* Shared pieces of the tcmma CLI: argument helpers, a JSON writer, tables. */
#ifndef TCMMA_CLI_H
#define TCMMA_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of every command. 4: something this machine lacks (a CUDA
 * driver or device for tcmma devices; verify: cases skipped, none failed). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_DECLINED = 3, CLI_UNAVAILABLE = 4,
       CLI_SKIPPED = CLI_UNAVAILABLE };

/* A command: argv[0] is the command's own name. Returns an exit code. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* A row of a table of subcommands (tools/commands.def, tools/bench.def). */
typedef struct {
  const char *name;
  cli_command_fn fn;
  const char *summary;
} cli_subcommand;

/* Runs the subcommand argv[1] names among table[0..n) with argv from it on.
 * No argument prints usage on stderr (CLI_USAGE), -h/--help on stdout
 * (CLI_OK); an unknown name is CLI_USAGE after "WHO: unknown KIND 'x':
 * expected one of ..." on stderr. */
int cli_dispatch(const char *who, const char *kind, const cli_subcommand *table, size_t n,
                 void (*usage)(FILE *out), int argc, char **argv);

/* Prints "tcmma CMD: <message>" and a pointer to --help on stderr; returns
 * CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "tcmma CMD: <message>" on stderr; returns CLI_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records a failure's message without printing it (cli_fail and cli_usage
 * record theirs): for a failure whose words already went to stderr, such as
 * NVRTC's log. */
void cli_note_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether a command's arguments ask for JSON (--json before any "--"). */
bool cli_wants_json(int argc, char **argv);

/* For a command asked for JSON that failed (exit code rc) before writing any
 * JSON to stdout: prints {"error": {"command", "exit_code", "message"}}, the
 * message the last recorded failure's (null when none was). No-op when JSON
 * was already written. */
void cli_json_failure(const char *command, int rc);

/* Whether arg is -h or --help. */
bool cli_is_help(const char *arg);

/* Prints help, a printf format whose one %s receives the precisions of
 * tables/prec.def ("f64 f32 ..."), on stdout. */
void cli_print_help_precs(const char *help);

/* The arguments of a command whose only option is --json: sets *json;
 * returns -1 to go on, CLI_OK after printing help, or CLI_USAGE (after a
 * usage message) for anything else. */
int cli_json_only(const char *cmd, const char *help, int argc, char **argv, bool *json);

/* Takes the value of option argv[*i] (the next argument), advancing *i; NULL
 * (after a usage message) when it is missing. */
const char *cli_value(const char *cmd, int argc, char **argv, int *i);

/* Parses a decimal integer in [lo, hi] with the one number parser
 * (tables/decimal.h); false (after a usage message naming the option, the value
 * and the range) otherwise. */
bool cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

/* Parses a compute capability for option opt (cli_parse_cc); false (after
 * a usage message naming the value and the expected range) otherwise. */
bool cli_cc(const char *cmd, const char *opt, const char *text, int *out);

/* A streaming JSON writer with two-space indentation. */
typedef struct {
  FILE *out;
  int depth;
  bool need_comma[64];
  bool after_key;
} json_writer;

void json_init(json_writer *w, FILE *out);
void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s); /* NULL writes null */
void json_int(json_writer *w, long long v);
void json_bool(json_writer *w, bool v);
void json_null(json_writer *w);
void json_double(json_writer *w, double v);
/* An arm's tile as the JSON array [m, n, k]. */
void json_tile(json_writer *w, int m, int n, int k);
/* Ends the document with a newline. */
void json_finish(json_writer *w);

/* A growing list of borrowed strings (repeated options: -I, -D); free
 * items when done. cli_list_push: false when out of memory. */
typedef struct {
  const char **items;
  size_t count;
} cli_list;
bool cli_list_push(cli_list *l, const char *v);

/* An aligned text table: add cells row by row, then print. */
typedef struct {
  int cols, rows, cap;
  char **cells; /* rows*cols strings, owned */
} text_table;

void table_init(text_table *t, int cols);
/* Appends one row of t->cols strings (copied). */
void table_row(text_table *t, const char *const *cells);
void table_print(const text_table *t, FILE *out);
void table_free(text_table *t);

#endif

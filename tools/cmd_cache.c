/* tcmma cache: where the compile cache lives, what it holds, its bound; and
 * `tcmma cache clear` to empty it. */
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma cache [clear] [--json]\n\n"
    "Prints the disk cache of compiled programs: its directory ($TCMMA_CACHE_DIR,\n"
    "else $XDG_CACHE_HOME/tcmma, else ~/.cache/tcmma), whether it is used (TCMMA_CACHE=0:\n"
    "memory only; a directory that is not yours or is writable by others is refused),\n"
    "its entries and their bytes, temporary files, and its size bound\n"
    "(TCMMA_CACHE_MAX_BYTES, default 256 MiB: past it the least recently used entries go).\n"
    "  clear   remove every entry (and stale temporary files)\n"
    "  --json  {\"directory\", \"enabled\", \"problem\", \"entries\", \"bytes\", \"temp_files\",\n"
    "          \"max_bytes\", \"store_failures\", \"last_error\"}; with clear, what was\n"
    "          removed\n\n"
    "Exit status: 0 done; 1 clear found no usable cache directory, or a bad setting;\n"
    "2 usage error.\n";

static void print_json(const tcmma_cache_info *c, bool cleared) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "directory"), json_string(&w, c->directory[0] ? c->directory : NULL);
  json_key(&w, "enabled"), json_bool(&w, c->enabled);
  json_key(&w, "problem"), json_string(&w, c->problem[0] ? c->problem : NULL);
  json_key(&w, cleared ? "removed_entries" : "entries"), json_int(&w, (long long)c->entries);
  json_key(&w, cleared ? "removed_bytes" : "bytes"), json_int(&w, (long long)c->bytes);
  json_key(&w, cleared ? "removed_temp_files" : "temp_files"),
      json_int(&w, (long long)c->temp_files);
  json_key(&w, "max_bytes"), json_int(&w, (long long)c->max_bytes);
  json_key(&w, "store_failures"), json_int(&w, (long long)c->store_failures);
  json_key(&w, "last_error"), json_string(&w, c->last_error[0] ? c->last_error : NULL);
  json_end_object(&w);
  json_finish(&w);
}

static void print_text(const tcmma_cache_info *c) {
  printf("directory   %s\n", c->directory[0] ? c->directory : "(none)");
  printf("state       %s%s\n", c->enabled ? "on" : "not used: ", c->enabled ? "" : c->problem);
  printf("entries     %zu (%llu bytes)\n", c->entries, c->bytes);
  printf("temporary   %zu\n", c->temp_files);
  printf("bound       %llu bytes (TCMMA_CACHE_MAX_BYTES)\n", c->max_bytes);
  /* a full disk: on, yet nothing new is kept */
  if (c->store_failures || c->last_error[0])
    printf("failing     %zu stores failed%s%s\n", c->store_failures,
           c->last_error[0] ? "; last: " : "", c->last_error);
}

int cmd_cache(int argc, char **argv) {
  bool json = false, clear = false;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) json = true;
    else if (strcmp(argv[i], "clear") == 0 && !clear) clear = true;
    else return cli_usage("cache", "unexpected '%s': expected clear or --json", argv[i]);
  }
  tcmma_cache_info c;
  tcmma_error err;
  tcmma_status st = clear ? tcmma_cache_clear(&c, &err) : tcmma_cache_info_get(&c, &err);
  if (st != TCMMA_OK) return cli_fail("cache", "%s", err.message);
  if (json) print_json(&c, clear);
  else if (clear)
    printf("removed %zu entries (%llu bytes) and %zu temporary files from %s\n", c.entries,
           c.bytes, c.temp_files, c.directory);
  else print_text(&c);
  return CLI_OK;
}

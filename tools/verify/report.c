/* Reports CI systems read (tools/verify/plan.h): JUnit XML, validated by
 * the tests against tests/data/junit/junit.xsd, and TAP version 13,
 * validated with Perl's TAP::Parser (tests/report-check.sh). */
#include <string.h>
#include "tools/verify/plan.h"

/* The length of the valid UTF-8 sequence at s (1..4), 0 when invalid. */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
  if (n == 0 || s[0] > 0xf4) return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  unsigned cp = s[0] & (0x7fu >> n);
  for (size_t i = 1; i < n; i++) cp = cp << 6 | (s[i] & 0x3fu);
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp >= 0xfffe)) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0; /* overlong, a surrogate, or no XML character */
  return n;
}

/* s escaped for an XML attribute or text: the five entities, bytes that are
 * no XML 1.0 character (controls but tab, newline, return; invalid UTF-8)
 * as '?'. */
static void xml_text(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
    size_t n = utf8_len(p);
    if (n > 1) {
      fwrite(p, 1, n, f), p += n;
      continue;
    }
    switch (*p) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&apos;", f); break;
      case '\t': case '\n': case '\r': fputc(*p, f); break;
      default: fputc(n == 1 && *p >= 0x20 ? *p : '?', f);
    }
    p++;
  }
}

static const char *classname_of(const verify_item *it) {
  if (it->kind == VERIFY_ITEM_GEMM) return "gemm";
  if (it->kind == VERIFY_ITEM_WGMMA) return tcmma_wgmma_marker(it->wgmma);
  return it->accepted ? tcmma_arm_marker(it->arm) : "declined";
}

static void junit_case(FILE *f, const verify_report_case *c) {
  fputs("    <testcase name=\"", f), xml_text(f, c->item->name);
  fprintf(f, "\" classname=\"tcmma.verify.%s\" time=\"%.6f\"", classname_of(c->item),
          c->seconds > 0 ? c->seconds : 0.0);
  if (c->outcome == VERIFY_CASE_PASSED) {
    fputs("/>\n", f);
    return;
  }
  const char *tag = c->outcome == VERIFY_CASE_SKIPPED ? "skipped" : "failure";
  fprintf(f, ">\n      <%s message=\"", tag), xml_text(f, c->reason);
  if (c->outcome == VERIFY_CASE_SKIPPED) fputs("\"/>\n", f);
  else fputs("\" type=\"verify\">", f), xml_text(f, c->reason), fputs("</failure>\n", f);
  fputs("    </testcase>\n", f);
}

static void junit_property(FILE *f, const char *name, const char *value) {
  if (!value) return;
  fprintf(f, "      <property name=\"%s\" value=\"", name), xml_text(f, value), fputs("\"/>\n", f);
}

bool verify_report_junit(FILE *f, const verify_report_info *info, const verify_report_case *cases,
                         size_t n) {
  size_t failed = 0, skipped = 0;
  for (size_t i = 0; i < n; i++) {
    failed += cases[i].outcome != VERIFY_CASE_PASSED && cases[i].outcome != VERIFY_CASE_SKIPPED;
    skipped += cases[i].outcome == VERIFY_CASE_SKIPPED;
  }
  double secs = info->seconds > 0 ? info->seconds : 0.0;
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf(f, "<testsuites name=\"tcmma verify\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
          "skipped=\"%zu\" time=\"%.3f\">\n", n, failed, skipped, secs);
  fputs("  <testsuite name=\"", f), xml_text(f, info->suite);
  fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\"", n,
          failed, skipped, secs);
  fputs(" timestamp=\"", f), xml_text(f, info->timestamp);
  fputs("\" hostname=\"", f), xml_text(f, info->hostname), fputs("\">\n", f);
  fputs("    <properties>\n", f);
  junit_property(f, "executor", info->executor);
  junit_property(f, "plan", info->plan);
  junit_property(f, "device", info->device);
  junit_property(f, "shard", info->shard);
  fputs("    </properties>\n", f);
  for (size_t i = 0; i < n; i++) junit_case(f, &cases[i]);
  fputs("  </testsuite>\n</testsuites>\n", f);
  fflush(f);
  return !ferror(f);
}

/* s on one line for a TAP description or directive: '#' and '\' escaped
 * (a bare '#' would start a directive), line breaks as spaces. */
static void tap_text(FILE *f, const char *s) {
  for (const char *p = s ? s : ""; *p; p++) {
    if (*p == '#' || *p == '\\') fputc('\\', f), fputc(*p, f);
    else fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
  }
}

/* s as a double-quoted YAML scalar. */
static void yaml_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f), fputc(*p, f);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void verify_report_tap_begin(FILE *f, size_t n) {
  fprintf(f, "TAP version 13\n1..%zu\n", n);
  fflush(f);
}

void verify_report_tap_case(FILE *f, size_t number, const verify_report_case *c) {
  bool ok = c->outcome == VERIFY_CASE_PASSED || c->outcome == VERIFY_CASE_SKIPPED;
  fprintf(f, "%sok %zu - ", ok ? "" : "not ", number), tap_text(f, c->item->name);
  if (c->outcome == VERIFY_CASE_SKIPPED) fputs(" # SKIP ", f), tap_text(f, c->reason);
  fputc('\n', f);
  if (!ok) {
    fputs("  ---\n  message: ", f), yaml_string(f, c->reason);
    fprintf(f, "\n  severity: fail\n  duration_ms: %.3f\n  ...\n", c->seconds * 1e3);
  }
  fflush(f);
}

#!/bin/sh
# Validates a report tcmma verify wrote for CI systems; exit 0 when valid.
#   sh tests/report-check.sh junit FILE  the JUnit XML against
#       tests/data/junit/junit.xsd (xmllint), and its counts: the testsuite's
#       tests, failures and skipped are its testcase, failure and skipped
#       elements, and the testsuites element says the same
#   sh tests/report-check.sh tap FILE    a TAP version 13 stream (Perl's
#       TAP::Parser): the version line first, no parse error (a plan that
#       does not match, a test out of sequence), no line that is not TAP,
#       every YAML block readable
# tests/ensure-deps.sh installs xmllint (libxml2-utils) and TAP::Parser
# (perl) when missing. tests/test_verify_report.c runs it on tcmma's
# reports and on broken controls, which it must reject.
set -u
kind=${1:-} file=${2:-}
here=$(dirname "$0")
[ -f "$file" ] || { echo "report-check: no file '$file'" >&2; exit 2; }

count() { xmllint --xpath "$1" "$file" 2>/dev/null; }

case $kind in
junit)
  xmllint --noout --schema "$here/data/junit/junit.xsd" "$file" || exit 1
  for scope in '/testsuites/testsuite' '/testsuites'; do
    for pair in tests:testcase failures:failure skipped:skipped errors:error; do
      attr=${pair%%:*} elem=${pair#*:}
      want=$(count "sum($scope/@$attr)")
      have=$(count "count(//testcase/$elem)")
      [ "$elem" = testcase ] && have=$(count "count(//testcase)")
      if [ "$want" != "$have" ]; then
        echo "report-check: $file: $scope/@$attr is $want, the file holds $have <$elem>" >&2
        exit 1
      fi
    done
  done
  echo "report-check: $file: valid JUnit ($(count 'count(//testcase)') testcases)"
  ;;
tap)
  perl -MTAP::Parser -e '
    my $file = shift;
    open my $fh, "<", $file or die "cannot read $file\n";
    my $first = <$fh>;
    close $fh;
    my @bad;
    push @bad, "the first line is not \"TAP version 13\"" unless defined $first && $first eq "TAP version 13\n";
    my $p = TAP::Parser->new({ source => $file });
    my $n = 0;
    local $SIG{__WARN__} = sub {};  # the reader dies on what it cannot read: that is the message
    eval {
      while (my $r = $p->next) {
        $n++ if $r->is_test;
        push @bad, "line not TAP: " . $r->as_string if $r->is_unknown;
        push @bad, "unreadable YAML block" if $r->is_yaml && ref($r->data) ne "HASH";
      }
      1;
    } or push @bad, "unreadable: " . ($@ =~ s/ at \S+ line \d+.*//sr);
    push @bad, $p->parse_errors;
    push @bad, "no plan" unless $p->plan;
    if (@bad) { print STDERR "report-check: $file: $_\n" for @bad; exit 1 }
    printf "report-check: %s: valid TAP (%d tests, %d failed, %d skipped)\n", $file, $n,
      scalar($p->failed), scalar($p->skipped);
  ' "$file" || exit 1
  ;;
*)
  echo "usage: sh tests/report-check.sh junit|tap FILE" >&2
  exit 2
  ;;
esac

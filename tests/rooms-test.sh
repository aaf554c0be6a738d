#!/bin/sh
# The rooms are one-way (docs/design.md §2): tables/ < mma/ < nvrtc/ (with
# nvrtc/ptx, nvrtc/driver); the simulator mma/sim/ over tables/ alone; the
# verify harness tools/verify/ and the CLI tools/ on top, over public names
# only. Reads the build's objects (nm: what each defines, what it leaves
# undefined), draws the graph of files (A -> B: A calls a symbol B defines)
# and fails on
#   * a cycle between files (a strongly connected set of more than one
#     object) in tables/, mma/, mma/sim/, nvrtc/**, tools/verify/;
#   * a call against the room order (mma/ calling nvrtc/, tables/ calling
#     mma/, mma/sim/ calling mma/ or nvrtc/, a library room calling tools/);
#   * tools/ or tools/verify/ calling a library symbol no public header
#     (include/tcmma/*.h) declares, except the interfaces declared below;
#   * a file under tools/ including a library header other than
#     include/tcmma/*.h and the declared ones.
# Prints the folder graph (one line per folder edge: the number of file
# edges behind it). Then proves it can fail: a control object directory
# with a cycle, an upward call and a private call must be refused.
# Environment (set by `make check`): TCMMA_SRCDIR, TCMMA_BUILD.
set -eu
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
tmp=$(mktemp -d /tmp/tcmma-rooms-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Interfaces declared for the rooms above the library: room, symbol, why.
declared='tools/ tcmma__table_decimal tables/decimal.h: the strict decimal parser of the CLI
tools/ tcmma__table_open_file tables/file.h: the one safe way a command opens a user-named file'
declared_headers='tables/decimal.h tables/file.h'

# File pairs whose edges, both ways, the cycle search leaves out: none (keep
# it so; a pair here needs a reason beside it).
allowed_cycles=''

# Every identifier tcmma_* a public header names: the public API.
public() {
  cat "$src"/include/tcmma/*.h | grep -o 'tcmma_[A-Za-z0-9_]*' | grep -v '^tcmma__' | sort -u
}

# check OBJDIR: prints the folder graph and each fault; non-zero on a fault.
check() {
  (cd "$1" && find tables mma nvrtc tools -name '*.o' 2>/dev/null | sort | xargs nm -A -P) \
    >"$tmp/nm" || return 2
  public >"$tmp/public"
  printf '%s\n' "$declared" >"$tmp/declared"
  printf '%s\n' "$allowed_cycles" >"$tmp/allowed"
  awk -v pubfile="$tmp/public" -v declfile="$tmp/declared" -v allowfile="$tmp/allowed" '
    function room(f) {
      if (f ~ /^tables\//) return "tables"
      if (f ~ /^mma\/sim\//) return "sim"
      if (f ~ /^mma\//) return "mma"
      if (f ~ /^nvrtc\//) return "nvrtc"
      if (f ~ /^tools\/verify\//) return "verify"
      if (f ~ /^tools\//) return "tools"
      return ""
    }
    function folder(f) { sub(/\/[^\/]*$/, "/", f); return f }
    # May room a call room b? The library rooms in order; the simulator
    # over tables/ only; verify over every library room; tools/ over all.
    function may(a, b) {
      if (a == b) return 1
      if (a == "mma") return b == "tables"
      if (a == "nvrtc") return b == "tables" || b == "mma"
      if (a == "sim") return b == "tables"
      if (a == "verify") return b != "tools"
      if (a == "tools") return 1
      return 0
    }
    function lib(r) { return r == "tables" || r == "mma" || r == "nvrtc" || r == "sim" }
    BEGIN {
      while ((getline l < pubfile) > 0) pub[l] = 1
      while ((getline l < declfile) > 0) { split(l, p, " "); decl[p[1] SUBSEP p[2]] = 1 }
      while ((getline l < allowfile) > 0) {
        split(l, p, " "); allow[p[1] SUBSEP p[2]] = 1; allow[p[2] SUBSEP p[1]] = 1
      }
    }
    {
      f = $1; sub(/\.o:$/, "", f); files[f] = 1
      if ($3 == "U") { nu++; uf[nu] = f; us[nu] = $2 }
      else if ($3 ~ /^[TDBRCVW]$/) def[$2] = f
    }
    END {
      bad = 0
      for (i = 1; i <= nu; i++) {
        a = uf[i]; s = us[i]
        if (!(s in def)) continue
        b = def[s]
        if (a == b) continue
        ra = room(a); rb = room(b)
        if (!may(ra, rb)) {
          printf "rooms: %s calls %s (%s): %s/ may not call %s/\n", a, s, b, ra, rb; bad = 1
        } else if ((ra == "verify" || ra == "tools") && lib(rb) && !(s in pub) &&
                   !((folder(a) SUBSEP s) in decl)) {
          printf "rooms: %s calls %s (%s), which no public header declares\n", a, s, b; bad = 1
        }
        if (!((a SUBSEP b) in edge)) {
          edge[a SUBSEP b] = 1
          fe[folder(a) " -> " folder(b)]++
          if (ra != "tools" && rb != "tools" && !((a SUBSEP b) in allow)) {
            n++; ea[n] = a; eb[n] = b
          }
        }
      }
      for (e in fe) print "rooms: edge " e " " fe[e] | "sort"
      close("sort")
      # Reachability by Warshall over the files in the checked rooms: two
      # files reach each other exactly when they share a cycle.
      for (i = 1; i <= n; i++) {
        if (!(ea[i] in id)) { id[ea[i]] = ++m; name[m] = ea[i] }
        if (!(eb[i] in id)) { id[eb[i]] = ++m; name[m] = eb[i] }
        r[id[ea[i]], id[eb[i]]] = 1
      }
      for (k = 1; k <= m; k++)
        for (i = 1; i <= m; i++)
          if ((i, k) in r)
            for (j = 1; j <= m; j++)
              if ((k, j) in r) r[i, j] = 1
      for (i = 1; i <= m; i++) {
        if (i in seen) continue
        members = name[i]; c = 1
        for (j = i + 1; j <= m; j++)
          if (((i, j) in r) && ((j, i) in r)) { members = members " " name[j]; seen[j] = 1; c++ }
        if (c > 1) { print "rooms: cycle between " members; bad = 1 }
      }
      exit bad
    }' "$tmp/nm"
}

# check_includes SRCDIR: a file under tools/ includes only public headers,
# its own room'"'"'s and the declared ones.
check_includes() {
  bad=0
  for f in $(cd "$1" && find tools -name '*.c' -o -name '*.h' | sort); do
    incl='s/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p'
    for h in $(sed -n "$incl" "$1/$f"); do
      case $h in
        tcmma/*|tools/*|*.def) continue ;;
        */*) ;;
        *) [ -f "$1/$(dirname "$f")/$h" ] && continue ;;
      esac
      case " $declared_headers " in *" $h "*) continue ;; esac
      echo "rooms: $f includes $h, an internal header"
      bad=1
    done
  done
  return $bad
}

status=0
echo "rooms: the folder graph of $build/obj"
check "$build/obj" || status=1
check_includes "$src" || status=1

# The control: the real objects plus a file pair in a cycle (mma/), a
# tables/ file calling up into mma/, a tools/verify/ file calling a
# private symbol, and a tools/ file including an internal header.
cp -R "$build/obj" "$tmp/ctl"
cat >"$tmp/a.c" <<'C'
int rooms_ctl_b(void);
int rooms_ctl_a(void) { return rooms_ctl_b(); }
C
cat >"$tmp/b.c" <<'C'
int rooms_ctl_a(void);
int rooms_ctl_b(void) { return rooms_ctl_a(); }
C
cat >"$tmp/up.c" <<'C'
int rooms_ctl_a(void);
int rooms_ctl_up(void) { return rooms_ctl_a(); }
C
cat >"$tmp/private.c" <<'C'
int tcmma__table_decimal(void);
int rooms_ctl_private(void) { return tcmma__table_decimal(); }
C
for o in a:mma/rooms_ctl_a b:mma/rooms_ctl_b up:tables/rooms_ctl_up \
         private:tools/verify/rooms_ctl_private; do
  ${CC:-cc} -c -o "$tmp/ctl/${o#*:}.o" "$tmp/${o%%:*}.c"
done
check "$tmp/ctl" >"$tmp/ctl.log" 2>&1 &&
  { cat "$tmp/ctl.log"; echo "rooms: control passed"; exit 1; }
for want in 'cycle between mma/rooms_ctl_a mma/rooms_ctl_b' \
            'tables/rooms_ctl_up calls rooms_ctl_a (mma/rooms_ctl_a): tables/ may not call mma/' \
            'tools/verify/rooms_ctl_private calls tcmma__table_decimal'; do
  grep -qF "$want" "$tmp/ctl.log" ||
    { cat "$tmp/ctl.log"; echo "rooms: control lacks: $want"; exit 1; }
done
mkdir -p "$tmp/src/tools"
printf '#include "nvrtc/internal.h"\n' >"$tmp/src/tools/ctl.c"
check_includes "$tmp/src" >"$tmp/inc.log" && { echo "rooms: include control passed"; exit 1; }
grep -qF 'tools/ctl.c includes nvrtc/internal.h' "$tmp/inc.log" ||
  { cat "$tmp/inc.log"; echo "rooms: include control lacks its fault"; exit 1; }
echo "rooms: the control (a cycle, an upward call, a private call, an internal include) fails"
exit $status

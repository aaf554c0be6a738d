"""python -m tcmma: the tcmma CLI. Defers to the bundled CLI binary (the
wheel's tcmma/bin/tcmma), else $TCMMA_BIN or tcmma on PATH, with the same
arguments; without one, `arms`, `resolve D A B`, `ptx FILE`, `cache` and
`devices` are answered from the library."""
import os
import shutil
import sys


def _cli():
    here = os.path.dirname(os.path.abspath(__file__))
    for c in (os.environ.get("TCMMA_BIN"), os.path.join(here, "bin", "tcmma"),
              shutil.which("tcmma")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def _fallback(argv):
    import tcmma
    cmd, rest = (argv[0], argv[1:]) if argv else ("help", [])
    if cmd == "arms":
        for a in tcmma.arms(int(rest[0]) if rest else 0):
            print("%-16s %-4s m%dn%dk%d floor %d acc %s" % (
                a.marker, a.form.label, a.m, a.n, a.k, a.floor, a.acc.label))
    elif cmd == "resolve" and len(rest) >= 3:
        print(tcmma.resolve(*rest[:3]).label)
    elif cmd == "ptx" and rest:
        with open(rest[0], "rb") as f:
            info = tcmma.ptx.read(f.read())
        print("target %s, entries %s, requires %s" % (info.target, " ".join(info.entries),
                                                        info.required))
        for op, n in info.census.items():
            print("%6d %s" % (n, op))
    elif cmd == "cache":
        print(tcmma.cache.info())
    elif cmd == "devices":
        for d in tcmma.devices():
            print("%d %s cc %d" % (d.ordinal, d.name, d.cc))
    else:
        print("python -m tcmma: no tcmma CLI found (set TCMMA_BIN); without it: arms [CC], "
              "resolve D A B, ptx FILE, cache, devices", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    cli = _cli()
    if cli:
        os.execv(cli, [cli] + list(argv))
    try:
        return _fallback(argv)
    except Exception as e:  # errors as the CLI reports them: one line, status 1
        print("tcmma: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

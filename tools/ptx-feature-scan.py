#!/usr/bin/env python3
"""Derives tables/ptx_features.def rows from ptxas (docs/ptx.md, "Deriving rows").

Reads candidate probes, one per line ("ROW_ID instruction;", '#' comments;
or tests/data/ptx_probes.def's TCMMA_PTX_PROBE lines),
and asks the toolkit's ptxas, as tests/test_ptx_probe.c later proves:
  * which of its targets accept the probe at its highest PTX ISA version
    (one module per target, every probe in its own kernel: ptxas reports
    errors by line, so one run judges every probe), and
  * at the lowest accepting target, the lowest PTX ISA version that still
    accepts it (walking down one version at a time while the target can be
    written at that version),
then prints, per probe, a suggested row (sms as the table writes them,
suffix rule, PTX version) and the probe line for tests/data/ptx_probes.def.
It also prints each target's first PTX ISA version (tables/ptx_targets.def).

usage: tools/ptx-feature-scan.py CANDIDATES [--ptxas PATH] [--targets-only]
       (tools/ptx-candidates.txt holds the candidates the 2026-12-02 rows
       were derived from)
"""
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# The registers every probe kernel declares (as tests/test_ptx_probe.c).
PROLOGUE = (".reg .b32 %r<200>; .reg .f32 %f<200>; .reg .b64 %rd<64>; .reg .f64 %fd<64>; "
            ".reg .pred %p<8>; .reg .b16 %h<32>;")


def ptxas_path(argv):
    if "--ptxas" in argv:
        return argv[argv.index("--ptxas") + 1]
    return os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")


def run(ptxas, text, arch):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.run([ptxas, "-arch", arch, path, "-o", os.devnull],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr
    finally:
        os.unlink(path)


def sm_key(t):
    m = re.match(r"sm_(\d+)([af]?)$", t)
    return (int(m.group(1)), m.group(2))


def targets(ptxas):
    out = subprocess.run([ptxas, "--help"], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"'(sm_\d+[af]?)'", out)), key=sm_key)


def top_version(ptxas):
    _, log = run(ptxas, ".version 99.9\n.target sm_80\n.address_size 64\n", "sm_80")
    m = re.search(r"current version is '(\d+)\.(\d+)'", log)
    return int(m.group(1)) * 10 + int(m.group(2))


def version_state(ptxas, version, target):
    """'ok', 'target' (the version cannot write the target, nor can any
    lower one) or 'unknown' (ptxas has no such version: 7.9)."""
    rc, log = run(ptxas, ".version %d.%d\n.target %s\n.address_size 64\n.visible .entry e() { ret; }\n"
                  % (version // 10, version % 10, target), target)
    return "ok" if rc == 0 else "target" if "does not support .target" in log else "unknown"


def lower_versions(ptxas, target, top):
    """The versions below top that can write target, descending."""
    v = top
    while v > 10:
        v -= 1
        state = version_state(ptxas, v, target)
        if state == "target":
            return
        if state == "ok":
            yield v


def first_version(ptxas, target, top):
    """The lowest PTX ISA version that can write .target."""
    low = top
    for v in lower_versions(ptxas, target, top):
        low = v
    return low


def module(version, target, probes):
    lines = [".version %d.%d" % (version // 10, version % 10), ".target " + target,
             ".address_size 64"]
    at = {}
    for i, (_, text) in enumerate(probes):
        lines.append(".visible .entry p%d() { %s" % (i, PROLOGUE))
        at[len(lines) + 1] = i
        lines.append(text)
        lines.append("ret; }")
    # not an instruction: ptxas must report it, which shows it read the
    # module to its end (a syntax error can stop it early, and every probe
    # after it would then look accepted)
    lines.append(".visible .entry sentinel() {")
    at[len(lines) + 1] = SENTINEL
    lines.append("tcmma_probe_sentinel;")
    lines.append("ret; }")
    return "\n".join(lines) + "\n", at


SENTINEL = -1


class StoppedEarly(Exception):
    pass


def rejected(log, at):
    """The probes ptxas reports errors for; StoppedEarly when it did not
    reach the sentinel."""
    bad = set()
    for m in re.finditer(r"line (\d+); error", log):
        if int(m.group(1)) in at:
            bad.add(at[int(m.group(1))])
    if SENTINEL not in bad:
        raise StoppedEarly(log[:400])
    bad.discard(SENTINEL)
    return bad


def sms_text(accepting, all_targets):
    """The table's (sms, suffix) for the set of accepting targets."""
    plain = sorted({sm_key(t)[0] for t in accepting if sm_key(t)[1] == ""})
    arch = sorted({sm_key(t)[0] for t in accepting if sm_key(t)[1] == "a"})
    fam = sorted({sm_key(t)[0] for t in accepting if sm_key(t)[1] == "f"})
    sms, suffix = (plain, "ANY") if plain else (arch, "A_OR_F" if fam else "A")
    every = sorted({sm_key(t)[0] for t in all_targets})
    if sms and [s for s in every if s >= sms[0]] == sms and len(sms) > 1:
        return "(%d, UP)" % sms[0], suffix
    return "(%s)" % ", ".join(map(str, sms)), suffix


def main(argv):
    ptxas = ptxas_path(argv)
    ts = targets(ptxas)
    top = top_version(ptxas)
    if "--targets-only" in argv:
        for t in ts:
            v = first_version(ptxas, t, top)
            sm, suf = sm_key(t)
            print("TCMMA_PTX_TARGET(%d, %s, %d, %d)" % (sm, "'%s'" % suf if suf else "0", v // 10, v % 10))
        return 0
    probes = []
    for line in open(argv[1]):
        line = line.strip()
        probe = re.match(r'TCMMA_PTX_PROBE\((\w+), "(.*)"\)$', line)
        if probe:  # tests/data/ptx_probes.def itself: re-derive every row
            probes.append((probe.group(1), probe.group(2)))
        elif line and not line.startswith(("#", "/*", " *", "*/")):
            row, text = line.split(None, 1)
            probes.append((row, text))
    with ThreadPoolExecutor(8) as pool:
        logs = list(pool.map(lambda t: run(ptxas, *module(top, t, probes)[:1], t)[1], ts))
    accepting = {i: [] for i in range(len(probes))}
    for t, log in zip(ts, logs):
        _, at = module(top, t, probes)
        bad = rejected(log, at)
        for i in range(len(probes)):
            if i not in bad:
                accepting[i].append(t)
    for i, (row, text) in enumerate(probes):
        acc = accepting[i]
        if not acc:
            print("# %s: no target accepts: %s" % (row, text))
            continue
        low = acc[0]
        v = top
        for w in lower_versions(ptxas, low, top):
            src, at = module(w, low, [probes[i]])
            _, log = run(ptxas, src, low)
            if rejected(log, at):
                break
            v = w
        sms, suffix = sms_text(acc, ts)
        print("TCMMA_PTX_FEATURE(%s, N, \"?\", %s, %s, %d, %d)  # lowest %s; %s" %
              (row, suffix, sms, v // 10, v % 10, low, ",".join(acc)))
        print("TCMMA_PTX_PROBE(%s, \"%s\")" % (row, text))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except StoppedEarly as e:
        sys.exit("ptx-feature-scan: ptxas stopped before the end of a module (a probe it "
                 "cannot parse?); its log:\n%s" % e)

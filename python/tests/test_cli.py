"""python -m tcmma: defers to the CLI, else answers from the library."""
import os
import subprocess
import sys


def _run(args, env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([sys.executable, "-m", "tcmma"] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, env=e)


def test_defers_to_the_cli():
    build = os.environ.get("TCMMA_BUILD") or os.path.join(os.environ["TCMMA_SRCDIR"], "build")
    res = _run(["--version"], {"TCMMA_BIN": os.path.join(build, "tcmma")})
    assert res.returncode == 0 and res.stdout.startswith("tcmma ")


def test_answers_without_a_cli():
    env = {"TCMMA_BIN": "/nonexistent", "PATH": "/usr/bin:/bin"}
    res = _run(["arms"], env)
    assert res.returncode == 0 and "mma-bf16" in res.stdout
    res = _run(["resolve", "f32", "bf16", "bf16"], env)
    assert res.stdout.strip() == "mma-bf16"
    res = _run(["resolve", "f32", "f33", "bf16"], env)
    assert res.returncode == 1 and "'f33'" in res.stderr

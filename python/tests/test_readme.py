"""The README's Python quick start runs and prints what its comments say."""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("TCMMA_SRCDIR") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))


def test_readme_python_example_runs():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    sec = readme[readme.index("## Python quick start"):]
    code = re.search(r"```python\n(.*?)```\n", sec, re.S).group(1)
    res = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    assert res.returncode == 0, res.stderr
    said = [m.group(1).rstrip(". ") for m in re.finditer(r"# (.*)$", code, re.M)
            if "print(" in code[:m.start()].rsplit("\n", 1)[-1]]
    for got, want in zip(res.stdout.splitlines(), said):
        assert got.startswith(want.rstrip(".")), (got, want)

"""Rewrite docs/tutorial.md's console blocks with what their commands print now, the way
tests/teach/test_tutorial.py runs them:

    python tests/teach/regen_tutorial.py .      # from the repository root; read the diff before committing
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path


def main(root: Path) -> None:
    page = root / "docs" / "tutorial.md"

    def rerun(m: re.Match) -> str:
        first = m.group(1).split("\n", 1)[0]
        argv = shlex.split(first[2:])
        env = dict(os.environ, NO_COLOR="1", COLUMNS="200", PYTHONPATH=str(root))
        r = subprocess.run([sys.executable, "-m", "amddbg", *argv[1:]], capture_output=True, text=True, cwd=root,
                           env=env, stdin=subprocess.DEVNULL, timeout=600)
        out = "\n".join(ln.rstrip() for ln in r.stdout.rstrip("\n").split("\n"))
        return "```console\n" + first + "\n" + out + "\n```"

    page.write_text(re.sub(r"```console\n(.*?)```", rerun, page.read_text(), flags=re.S))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve())

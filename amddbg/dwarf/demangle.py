"""Itanium C++ demangling for ``addr2line -C`` (placeholder: c++filt fallback)."""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache


@lru_cache(maxsize=65536)
def demangle(name: str) -> str:
    if not name.startswith(("_Z", "__Z", "___Z", "____Z")):
        return name
    tool = shutil.which("c++filt")
    if tool is None:
        return name
    r = subprocess.run([tool, name], capture_output=True, text=True)
    return r.stdout.strip() or name

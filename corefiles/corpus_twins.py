"""What the host twins and runners of the run-and-compare corpora share (corefiles/samples, corefiles/heldout,
corefiles/oracle).

Their twins.py and runner.py are loaded by file path (tests/emu/test_samples.py, tests/emu/test_heldout.py,
bench/emu.py, bench/loopproof.py) or run as scripts from any directory, so they cannot import each other as a
package; each used to carry its own copy of the input stream and of the importlib loader. Now each puts corefiles/
on sys.path (the way the build scripts reach corefiles/corpus_build.py) and imports these: the inputs stay the
same bytes on every host and numpy version, because the stream is this one function.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

M64 = 0xFFFFFFFFFFFFFFFF


def splitmix64(seed: int, n: int) -> list[int]:
    """n pseudo-random 64-bit integers: splitmix64 from a state derived from `seed`, identical everywhere."""
    return splitmix64_from((seed * 0x2545F4914F6CDD1D + 0x1234567) & M64, n)


def splitmix64_from(state: int, n: int) -> list[int]:
    """n splitmix64 outputs from the 64-bit `state` itself (corefiles/oracle/twins.py seeds its stream so)."""
    out = []
    x = state & M64
    for _ in range(n):
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return out


def uniform32(seed: int, n: int, lo: float, hi: float) -> np.ndarray:
    """n float32 values in [lo, hi) (from 24 random bits each)."""
    return np.array([lo + (hi - lo) * ((x >> 40) / float(1 << 24)) for x in splitmix64(seed, n)], dtype=np.float32)


def fmix64(k: int) -> int:
    """MurmurHash3's 64-bit finalizer (the hash kernels of both corpora use it)."""
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    return k ^ (k >> 33)


def load(name: str, path: Path) -> ModuleType:
    """The Python file at `path` as module `name`, registered in sys.modules (its dataclasses need that)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod

"""corefiles/freshhangs2: a second held-out set for issue 20 (14 kernels modelled on cited public reports: a persistent
kernel's work queue, a ring buffer, an early exit before a grid barrier, an atomicInc sense barrier, a wave-wide vote
spin, a reader-writer lock upgrade, per-bucket locks, a stream-K fixup flag, a decoupled look-back scan, a poll
through a pointer argument -O2 hoists, and four kernels that complete: split-K with a semaphore per tile, the
look-back at agent scope, a ticket lock per workgroup leader, a block-wide OR in a loop), clang-19/22, gfx90a, gfx942,
gfx1100 and gfx1200 wave32/wave64, -O0/-O2, scored through the user's door by corefiles/freshhangs2/score.py (which
reuses corefiles/freshhangs/score.py's machinery): `amddbg run ... --core`, `amddbg explain --json` and
`amddbg --json -batch -ex 'thread apply all bt'` (against llvm-addr2line-22 -i). Every check of a case must hold.

By default one case per failure class this corpus made amddbg fix runs (DEFAULT, each naming its class); the whole
matrix (14 kernels x 24 objects) is marked slow and CI runs its cover (tests/bounded.py sample="axes": the fewest
slow cases that, with DEFAULT, run every class of kernels -- score.py's classes --, target, compiler and -O level;
AMDDBG_SLOW_LIMIT=0 runs all of it). Cases that still fail are xfails naming why (KNOWN), left out of that sample.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "corefiles" / "freshhangs2"


def _score():
    spec = importlib.util.spec_from_file_location("freshhangs2_score", DIR / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SCORE = _score()

# one case per class of failure fixed for this corpus (amddbg/replay/causes.py, analysis.py, code.py)
DEFAULT = [
    # a SIMT lock whose holders never entered the loop (an enclosing `if`): their release after the join, issued
    # by the atomic optimizer from one elected lane
    ("rwlock_upgrade", "llvm22-gfx90a-w64-O2"),
    ("rwlock_upgrade", "llvm19-gfx1100-w32-O0"),
    # one lock word per lane (locks[key & 3]): a holder per word
    ("bucket_locks", "llvm19-gfx1200-w32-O2"),
    # a vote over per-lane words, some written and final, some never written: no_writer, the unwritten lanes named
    ("vote_spin_any", "llvm22-gfx942-w64-O2"),
    # the only "writers" are the spinners themselves, on an `if` arm they did not take (layout order is not
    # control flow): no_writer, and a sense nobody flips back waits for 0
    ("atomicinc_barrier", "llvm22-gfx90a-w64-O2"),
    ("persistent_queue_tail", "llvm22-gfx1100-w32-O2"),
    # the publication's store, found by the address the code fixes (`flags[0]`) among several stores to `flags`
    ("lookback_scan_narrow", "llvm22-gfx90a-w64-O2"),
    # -O0: a loop that reloads launch sizes in a helper (`nblocks()`) polls the argument, not the dispatch packet
    ("early_exit_grid_sync", "llvm19-gfx90a-w64-O0"),
    ("ring_buffer_full", "llvm22-gfx1200-w64-O2"),
    # -O0 reads the wave's own counter (`ticks[t] += 1`) before the flag in the loop: the poll is the flag, a plain
    # load that keeps its stale line (not_visible; freshhangs' hoist_device_global on gfx90a -O0 is the same class)
    ("hoist_done_arg", "llvm19-gfx942-w64-O0"),
]


def _known(kernel: str, obj: str) -> str | None:
    """Why a case still fails (issue 20 stays open on these), or None."""
    for (k, match), why in KNOWN.items():
        if k == kernel and all(part in obj for part in match.split("*")):
            return why
    return None


# (kernel, object pattern: parts that must all be in the object's name, split at *) -> why it still fails (seen on
# the objects score.py ran; xfail without strict=True)
KNOWN: dict = {
    ("lookback_scan_narrow", "-O0"): "-O0: look_back<>() and scan_tile<>() are called functions; the publication "
    "(flags[0] = P | agg) is a store of the caller, scan_tile, and the writer scan looks in the polling function and "
    "its callees only: the writer's line is not named",
    ("lookback_scan_narrow", "llvm19*-O2"): "clang-19 -O2 (gfx90a, gfx942, gfx1200): among the stores to flags the "
    "writer scan names the tile's own aggregate publication (line 277, flags[tile] = A | agg), not tile 0's "
    "flags[0] = P | agg (line 275): the address-fixed-by-code rule does not apply to that addressing",
    ("atomicinc_barrier", "w32-O0"): "wave32 -O0: the second wave of each workgroup waits at the barrier and -O0 hides "
    "every store's address, so the spin stays writer_blocked (and the cycle analysis names data[i] -= 1 at line "
    "142 as the waiters' write of the sense flag)",
}


def _class(kernel: str) -> str:
    return SCORE.CASES[kernel][0]


def _cases():
    cases = bounded.matrix([f"freshhangs2-{o}.co" for o in SCORE.OBJECTS], list(SCORE.CASES),
                           fast=lambda k, name: (k, name[len("freshhangs2-"):-3]) in DEFAULT, classes=_class,
                           sample="axes", avoid=lambda k, name: bool(_known(k, name[len("freshhangs2-"):-3])))
    if bounded.limit() is None:
        cases = [c for c in cases if not (c.slow and _known(c.kernel, c.obj[len("freshhangs2-"):-3]))]
    return [pytest.param(c.kernel, c.obj[len("freshhangs2-"):-3], marks=[pytest.mark.slow] if c.slow else [],
                         id=f"{c.kernel}-{c.obj[len('freshhangs2-'):-3]}") for c in cases]


def test_the_corpus_is_built_and_tagged():
    assert len(SCORE.OBJECTS) == 24
    assert set(SCORE.CASES) == set(SCORE.EXPECT)
    for kernel, (cls, *_rest) in SCORE.CASES.items():
        if cls != "no_invented":
            assert SCORE.MARKS.get(kernel, {}).get("poll"), kernel  # every hang names its poll in the source
    # the scorer is freshhangs' (retargeted), not a copy: freshhangs' own stays pointed at its folder
    fresh = importlib.util.spec_from_file_location("fh_score", ROOT / "corefiles" / "freshhangs" / "score.py")
    mod = importlib.util.module_from_spec(fresh)
    fresh.loader.exec_module(mod)
    assert mod.CORPUS == "freshhangs" and SCORE.B.CORPUS == "freshhangs2"
    assert SCORE.score_case is SCORE.B.score_case


@pytest.mark.parametrize("kernel,obj", _cases())
def test_every_check_holds(tmp_path, kernel, obj, request):
    why = _known(kernel, obj)
    if why:
        request.applymarker(pytest.mark.xfail(reason=why))
    checks = SCORE.score_case(obj, kernel, tmp_path)
    failed = [(name, seen) for name, ok, seen in checks if not ok]
    assert checks and not failed, failed

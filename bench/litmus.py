"""Decide the whole shared litmus corpus and print the time and the agreement figures.

Usage: python bench/litmus.py [LITMUS_DIR]   (default ../shared/litmus next to the checkout)
With AMDDBG_DAT3M=<Dat3M checkout> it also decides the whole Dat3M litmus/VULKAN suite.
There is no external tool to compare with at run time (the oracles are the stored verdict files), so
the figures are wall time per part and agreement N/N per expected-verdict file.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from amddbg.models.litmus import load  # noqa: E402
from amddbg.models.verdict import decide  # noqa: E402


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "litmus"
    if not root.is_dir():
        root = Path("/work/shared/litmus")
    t0 = time.perf_counter()
    ok = total = 0
    slowest = (0.0, "")
    for f in sorted((root / "khronos").glob("*.test")):
        t1 = time.perf_counter()
        v = decide(load(f))
        for q in v.queries:
            total += 1
            ok += q.agrees
        slowest = max(slowest, (time.perf_counter() - t1, f.name))
    t_kh = time.perf_counter() - t0
    print(f"khronos: {ok}/{total} SATISFIABLE/NOSOLUTION lines agree, {t_kh:.2f} s")
    t1 = time.perf_counter()
    verdicts = {}
    for csv, field in (("VULKAN-expected.csv", "condition_holds"), ("VULKAN-DR-expected.csv", "race_free"),
                       ("VULKAN-Liveness-Fair-expected.csv", "terminates")):
        ok = total = 0
        for ln in (root / "dat3m" / csv).read_text().splitlines():
            if not ln.strip():
                continue
            rel, exp = ln.rsplit(",", 1)
            if rel not in verdicts:
                t2 = time.perf_counter()
                verdicts[rel] = decide(load(root / rel))
                slowest = max(slowest, (time.perf_counter() - t2, rel))
            v = verdicts[rel]
            got = {"condition_holds": v.condition_holds, "race_free": not v.data_race,
                   "terminates": v.terminates}[field]
            total += 1
            ok += got == (exp.strip() == "1")
        print(f"dat3m {csv}: {ok}/{total} agree")
    t_d = time.perf_counter() - t1
    print(f"dat3m: {len(verdicts)} files, {t_d:.2f} s")
    print(f"total: {time.perf_counter() - t0:.2f} s (goal < 60 s); slowest file {slowest[1]} {slowest[0]:.2f} s")
    dat3m = os.environ.get("AMDDBG_DAT3M")
    if dat3m and (Path(dat3m) / "litmus" / "VULKAN").is_dir():
        _full_dat3m(Path(dat3m))
    return 0


def _full_dat3m(root: Path) -> None:
    """Optional: the whole Dat3M VULKAN suite against Dat3M's own CSVs (AMDDBG_DAT3M=checkout)."""
    t0 = time.perf_counter()
    cache: dict[tuple[str, bool], object] = {}
    res = root / "dartagnan" / "src" / "test" / "resources"
    for csv, field, nochains in (("VULKAN-expected.csv", "c", False), ("VULKAN-DR-expected.csv", "d", False),
                                 ("VULKAN-Liveness-Fair-expected.csv", "t", False),
                                 ("VULKAN-NOCHAINS-expected.csv", "c", True),
                                 ("VULKAN-DR-NOCHAINS-expected.csv", "d", True)):
        ok = total = 0
        for ln in (res / csv).read_text().splitlines():
            if not ln.strip() or ln.startswith(("//", ";")):
                continue
            rel, exp = ln.strip().rsplit(",", 1)
            if not (root / rel).exists():
                continue
            key = (rel, nochains)
            if key not in cache:
                cache[key] = decide(load(root / rel), nochains=nochains)
            v = cache[key]
            got = {"c": v.condition_holds, "d": not v.data_race, "t": v.terminates}[field]
            total += 1
            ok += got == (exp == "1")
        print(f"full dat3m {csv}: {ok}/{total} agree")
    print(f"full dat3m: {len(cache)} decisions, {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    raise SystemExit(main())

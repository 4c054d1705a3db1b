#!/usr/bin/env python3
"""Rebuild amddbg's corpus of real AMDGPU code objects with Debian's clang-19 and clang-22.

    python3 corefiles/build.py            # rebuild everything into corefiles/co/, refresh references
    python3 corefiles/build.py --check    # rebuild into a temp dir and compare with the manifest

Every object is compiled from corefiles/src/ with -g, at -O0 and -O2, for each processor and wave
size the compiler allows. Paths embedded in DWARF are made independent of the checkout location
(-fdebug-compilation-dir), so a rebuild with the same compiler package reproduces the same bytes.

Next to each object the script stores reference dumps made by the LLVM tools (`REFERENCE_DUMPS`);
tests read those stored files, so they run without LLVM installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
OUT = HERE / "co"
COMP_DIR = "/amddbg/corefiles/src"  # what DW_AT_comp_dir says in every object

# processor -> wave sizes it supports (gfx9 family is wave64 only; gfx1250 is wave32 only)
TARGETS_19 = {
    "gfx906": (64,), "gfx90a": (64,), "gfx942": (64,),
    "gfx1030": (32, 64), "gfx1100": (32, 64), "gfx1200": (32, 64),
}
TARGETS_22 = dict(TARGETS_19, **{"gfx908": (64,), "gfx950": (64,), "gfx1201": (32,), "gfx1250": (32,)})
COMPILERS = {"19": TARGETS_19, "22": TARGETS_22}
OPT_LEVELS = ("O0", "O2")
LANGUAGES = ("hip", "cl")

# suffix -> command (list; "{tool}" is the LLVM tool prefix like "llvm-readelf-22", "{co}" the object)
REFERENCE_DUMPS: dict[str, list[str]] = {
    "readelf.txt": ["llvm-readelf-22", "-h", "--notes", "{co}"],
    "objdump.txt": ["llvm-objdump-22", "-d", "{co}"],
    "dwarfdump.txt": ["llvm-dwarfdump-22", "--debug-info", "--debug-line", "{co}"],
    "frame.txt": ["llvm-dwarfdump-22", "--debug-frame", "{co}"],
}


@dataclass(frozen=True)
class Build:
    compiler: str  # "19" | "22"
    target: str
    wave: int
    opt: str
    lang: str

    @property
    def name(self) -> str:
        return f"llvm{self.compiler}-{self.target}-w{self.wave}-{self.opt}-{self.lang}.co"

    def wave_flags(self) -> list[str]:
        # wave64 is the only mode on gfx9; on gfx10+ wave32 is the default, wave64 is opt-in.
        return ["-mwavefrontsize64"] if self.wave == 64 and not self.target.startswith("gfx9") else []

    def commands(self, out: Path, work: Path) -> list[list[str]]:
        cc = f"clang-{self.compiler}"
        common = ["-g", f"-{self.opt}", f"-fdebug-compilation-dir={COMP_DIR}", *self.wave_flags()]
        if self.lang == "hip":
            return [[cc, "-x", "hip", f"--offload-arch={self.target}", "-nogpulib", "-nogpuinc",
                     "--cuda-device-only", "--no-gpu-bundle-output", "-cuid=amddbg-corpus", *common,
                     "probe.hip", "-o", str(out)]]
        obj = work / (out.name + ".o")
        return [
            [cc, "-target", "amdgcn-amd-amdhsa", f"-mcpu={self.target}", "-x", "cl", "-cl-std=CL2.0",
             "-nogpulib", "-Wno-everything", *common, "-c", "probe.cl", "-o", str(obj)],
            [f"ld.lld-{self.compiler}", "-shared", str(obj), "-o", str(out)],
        ]


def all_builds() -> list[Build | HostBuild]:
    return HOST_BUILDS + [
        Build(c, t, w, o, lang)
        for c, targets in COMPILERS.items()
        for t, waves in targets.items()
        for w in waves
        for o in OPT_LEVELS
        for lang in LANGUAGES
    ]


@dataclass(frozen=True)
class HostBuild:
    """A host object (x86-64 ELF) whose .hip_fatbin embeds an offload bundle of device code objects."""

    compiler: str
    targets: tuple[str, ...]
    compressed: bool

    @property
    def name(self) -> str:
        suffix = "-compressed" if self.compressed else ""
        return f"host-llvm{self.compiler}-{'-'.join(self.targets)}-O2{suffix}.o"

    def commands(self, out: Path, work: Path) -> list[list[str]]:
        cmd = [f"clang-{self.compiler}", "-x", "hip", *(f"--offload-arch={t}" for t in self.targets),
               "-nogpulib", "-nogpuinc", "-cuid=amddbg-corpus", "-g", "-O2",
               f"-fdebug-compilation-dir={COMP_DIR}", "-c", "host.hip", "-o", str(out)]
        if self.compressed:
            cmd.insert(-4, "--offload-compress")
        return [cmd]


HOST_BUILDS = [HostBuild("22", ("gfx90a", "gfx1100"), False), HostBuild("22", ("gfx90a", "gfx1100"), True)]


def tool_version(tool: str) -> str:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""
    return next((line.strip() for line in out.splitlines() if "version" in line), "")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_all(dest: Path, builds: list[Build]) -> list[dict]:
    dest.mkdir(parents=True, exist_ok=True)
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for b in builds:
            out = dest / b.name
            cmds = b.commands(out, Path(tmp))
            for cmd in cmds:
                r = subprocess.run(cmd, cwd=SRC, capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit(f"build failed: {' '.join(cmd)}\n{r.stderr}")
            details = ({"kind": "host", "targets": list(b.targets), "compressed": b.compressed}
                       if isinstance(b, HostBuild) else
                       {"kind": "code_object", "target": b.target, "wave": b.wave, "opt": b.opt, "lang": b.lang})
            records.append({
                "file": b.name, "sha256": sha256(out), "compiler": f"clang-{b.compiler}",
                "compiler_version": tool_version(f"clang-{b.compiler}"), **details,
                "commands": [" ".join(c if not c.startswith("/") else Path(c).name for c in cmd)
                             for cmd in cmds],
            })
    return records


def wave64_delta(plain: str, wave64: str) -> str:
    """The instruction lines of `llvm-objdump -d --mattr=+wavefrontsize64` that differ from plain `-d` (which
    names every GFX10+ object's registers the wave32 way): the lane masks of wave64 code (`vcc`, `s[0:1]`).
    Laid over the stored plain listing, they give the wave64 listing; storing only them keeps the corpus small."""
    def lines(text: str) -> dict[str, str]:
        out = {}
        for line in text.splitlines():
            m = re.search(r"// ([0-9A-F]+):", line)
            if line.startswith("\t") and m:
                out[m.group(1)] = line
        return out

    before = lines(plain)
    return "".join(line + "\n" for addr, line in lines(wave64).items() if before.get(addr) != line)


def write_references(dest: Path, names: list[str]) -> None:
    for name in names:
        co = dest / name
        for suffix, template in REFERENCE_DUMPS.items():
            cmd = [arg.replace("{co}", name) for arg in template]
            if shutil.which(cmd[0]) is None:
                print(f"skipping {suffix}: {cmd[0]} not installed", file=sys.stderr)
                continue
            r = subprocess.run(cmd, cwd=dest, capture_output=True, text=True)
            (dest / f"{co.name}.{suffix}").write_text(r.stdout)
        if "-w64-" in name and "-gfx1" in name and shutil.which("llvm-objdump-22"):  # wave64 GFX10+ code
            plain = subprocess.run(["llvm-objdump-22", "-d", name], cwd=dest, capture_output=True, text=True)
            w64 = subprocess.run(["llvm-objdump-22", "-d", "--mattr=+wavefrontsize64", name], cwd=dest,
                                 capture_output=True, text=True)
            (dest / f"{co.name}.objdump-w64.txt").write_text(wave64_delta(plain.stdout, w64.stdout))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir and compare hashes")
    ap.add_argument("--only", help="substring filter on object names")
    ap.add_argument("--refs-only", action="store_true", help="only regenerate reference dumps")
    args = ap.parse_args()
    builds = [b for b in all_builds() if not args.only or args.only in b.name]
    manifest_path = OUT / "manifest.json"
    if args.check:
        manifest = {r["file"]: r for r in json.loads(manifest_path.read_text())["objects"]}
        with tempfile.TemporaryDirectory() as tmp:
            records = build_all(Path(tmp), builds)
        bad = [r["file"] for r in records if manifest.get(r["file"], {}).get("sha256") != r["sha256"]]
        print(f"{len(records) - len(bad)}/{len(records)} objects reproduce")
        for name in bad:
            print(f"  differs: {name}")
        return 1 if bad else 0
    if not args.refs_only:
        records = build_all(OUT, builds)
        old = json.loads(manifest_path.read_text())["objects"] if manifest_path.exists() else []
        merged = {r["file"]: r for r in old} | {r["file"]: r for r in records}
        manifest_path.write_text(json.dumps({"objects": sorted(merged.values(), key=lambda r: r["file"])},
                                            indent=1) + "\n")
    write_references(OUT, [b.name for b in builds if isinstance(b, Build)])
    print(f"{len(builds)} objects in {os.path.relpath(OUT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

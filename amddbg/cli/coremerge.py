"""`amddbg coremerge HOST_CORE GPU_CORE -o UNIFIED`: merge a split pair into a unified core."""

from __future__ import annotations

import argparse
import sys

from amddbg.core.merge import merge_cores


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("host_core", metavar="HOST_CORE", help="the host process core (kernel core dump)")
    p.add_argument("gpu_core", metavar="GPU_CORE", help="the GPU core (gpucore.<pid>)")
    p.add_argument("-o", "--output", required=True, metavar="UNIFIED", help="the unified core to write")
    p.add_argument("-f", "--force", action="store_true", help="overwrite UNIFIED if it exists")


def run(args: argparse.Namespace) -> int:
    for w in merge_cores(args.host_core, args.gpu_core, args.output, force=args.force):
        print(f"amddbg: warning: {w}", file=sys.stderr)
    return 0

"""Running the per-core summaries: in this process, in `--jobs N` processes, or on a Dask cluster.

Tasks take a path and return a small JSON-able summary (amddbg.triage.summarize); results come back in
input order whatever ran them, so every backend produces the same tree.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from amddbg.errors import NotSupported, UsageError
from amddbg.triage.summarize import summarize_to_json
from amddbg.triage.tree import CoreSummary


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    p = Progress(TextColumn("triage"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                 console=Console(stderr=True), transient=True)
    p.start()
    task = p.add_task("cores", total=total)
    return p, task


def run_summaries(paths: Sequence, *, jobs: int = 1, cluster: str | None = None, options: dict | None = None,
                  progress: bool | None = None, on_result: Callable[[int, dict], None] | None = None
                  ) -> list[CoreSummary]:
    options = dict(options or {})
    if progress is None:
        progress = sys.stderr.isatty()
    bar = _progress(len(paths), progress)
    results: list[dict | None] = [None] * len(paths)

    def done(i: int, doc: dict) -> None:
        results[i] = doc
        if bar is not None:
            bar[0].advance(bar[1])
        if on_result is not None:
            on_result(i, doc)

    try:
        if cluster:
            _run_dask(paths, cluster, jobs, options, done)
        elif jobs > 1 and len(paths) > 1:
            _run_processes(paths, jobs, options, done)
        else:
            for i, p in enumerate(paths):
                done(i, summarize_to_json(p, **options))
    finally:
        if bar is not None:
            bar[0].stop()
    return [CoreSummary.from_json(d) for d in results if d is not None]


def _run_processes(paths, jobs: int, options: dict, done) -> None:
    import concurrent.futures as cf
    import multiprocessing as mp

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {pool.submit(_chunk, list(paths[i:i + 8]), options): i for i in range(0, len(paths), 8)}
        for fut in cf.as_completed(futures):
            base = futures[fut]
            for k, doc in enumerate(fut.result()):
                done(base + k, doc)


def _chunk(paths: list, options: dict) -> list[dict]:
    return [summarize_to_json(p, **options) for p in paths]


# How long to wait for a scheduler to answer and for its first worker to join: a connection limit, not a budget
# on the answer (the tree depends only on the cores).
CONNECT_SECONDS = float(os.environ.get("AMDDBG_DASK_CONNECT_SECONDS", "30"))


def _absolute(p):
    """Workers may run in another directory (or on another host sharing the file system): they get absolute
    paths. A host + GPU pair is a list of paths."""
    if isinstance(p, list | tuple):
        return [os.path.abspath(x) for x in p]
    return os.path.abspath(p)


class _DaskLog:
    """Dask's own log lines ("Couldn't gather 1 keys, rescheduling ...", worker restarts) gathered while triage
    runs and said once each as one amddbg line, instead of a page of tracebacks on stderr."""

    NAMES = ("distributed", "distributed.client", "distributed.worker", "distributed.nanny",
             "distributed.scheduler", "distributed.core", "distributed.comm")

    def __init__(self) -> None:
        import logging

        self.counts: dict[str, int] = {}
        outer = self

        class _Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if record.levelno < logging.WARNING:
                    return
                text = " ".join(record.getMessage().split())
                kind = "a worker was lost and its tasks were rescheduled" if (
                    "rescheduling" in text or "gather" in text) else text[:160]
                outer.counts[kind] = outer.counts.get(kind, 0) + 1

        self.handler = _Handler()
        self.saved: list = []

    def __enter__(self):
        import logging

        for name in self.NAMES:
            log = logging.getLogger(name)
            self.saved.append((log, log.propagate, list(log.handlers)))
            log.handlers = [self.handler]
            log.propagate = False
        return self

    def __exit__(self, *exc) -> None:
        for log, propagate, handlers in self.saved:
            log.handlers = handlers
            log.propagate = propagate
        for kind, n in self.counts.items():
            times = f" ({n} times)" if n > 1 else ""
            print(f"amddbg: warning: Dask: {kind}{times}", file=sys.stderr)


def _run_dask(paths, cluster: str, jobs: int, options: dict, done) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise NotSupported("--cluster needs Dask distributed: pip install 'amddbg[cluster]'") from None
    with _DaskLog():
        _run_dask_logged(paths, cluster, jobs, options, done, Client, LocalCluster, as_completed)


def _run_dask_logged(paths, cluster, jobs, options, done, Client, LocalCluster, as_completed) -> None:
    local = None
    if cluster == "local":
        local = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(local)
    else:
        if not cluster.startswith(("tcp://", "tls://", "ucx://", "inproc://")):
            raise UsageError(f"--cluster: expected tcp://HOST:PORT or 'local', not {cluster!r}")
        try:
            client = Client(cluster, timeout=f"{CONNECT_SECONDS}s")
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"--cluster {cluster}: no Dask scheduler answered within {CONNECT_SECONDS} s "
                             f"({' '.join(str(exc).split())[:200]})") from None
        try:
            client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except (TimeoutError, OSError):
            client.close()
            raise UsageError(f"--cluster {cluster}: the scheduler has no workers (none joined within "
                             f"{CONNECT_SECONDS} s); start some with `dask worker {cluster}`") from None
    try:
        paths = [_absolute(p) for p in paths]
        chunks = [list(paths[i:i + 8]) for i in range(0, len(paths), 8)]
        futures = client.map(_chunk, chunks, options=options, pure=False)
        index = {f.key: n * 8 for n, f in enumerate(futures)}
        for fut in as_completed(futures):
            base = index[fut.key]
            for k, doc in enumerate(fut.result()):
                done(base + k, doc)
    finally:
        client.close()
        if local is not None:
            local.close()


def expand_paths(paths: Sequence[str]) -> list:
    """`expand_inputs` without the inputs that could not be listed."""
    return expand_inputs(paths)[0]


def expand_inputs(paths: Sequence[str]) -> tuple[list, list[tuple[str, str]]]:
    """(files, problems). Files as given; a directory contributes its *.core / *.gpu / core* files (sorted).
    A file reached twice (the same file through a symlinked directory, a hard link, or named twice) is
    counted once: its first path is kept. A directory that cannot be listed is a problem (path, reason),
    a line of the report, not the end of the run."""
    out: list = []
    problems: list[tuple[str, str]] = []
    seen: set = set()

    def add(f: str) -> None:
        try:
            st = os.stat(f)
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            out.append(f)

    for p in paths:
        if os.path.isdir(p):
            try:
                names = sorted(n for n in os.listdir(p) if n.endswith((".core", ".gpu")) or n.startswith("core"))
            except OSError as exc:
                problems.append((p, f"cannot list the directory: {exc.strerror or exc}"))
                continue
            for n in names:
                add(os.path.join(p, n))
        else:
            add(p)
    return out, problems

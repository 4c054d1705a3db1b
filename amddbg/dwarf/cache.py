"""On-disk address index: an SQLite file of plain data (JSON text and little-endian integer arrays).

Why: decoding DWARF of a 14 MB rocsparse code object in Python takes seconds; reading the same
index back is a few memcpy's. The file is data only (never pickle): a corrupt or foreign file can
at worst make us rebuild. It is keyed by the sha256 of the object's bytes (size and mtime are stored
alongside for humans), lives in ``$AMDDBG_CACHE_DIR``, else ``$XDG_CACHE_HOME/amddbg``, else
``~/.cache/amddbg``, and is disabled by ``AMDDBG_NO_CACHE=1`` (or ``--no-cache`` on the CLI). Objects
with less DWARF than ``symbolize.INDEX_MIN_DEBUG_BYTES`` get no index by default: for them, importing
sqlite3 costs more than decoding. Failures to read or write the cache are never errors: we fall back
to parsing.
"""

from __future__ import annotations

import json
import os
import sqlite3

# Module level, not in the methods: a function-level import statement costs ~0.5 us per call, and
# `chain`/`lines` run once per address (it was a fifth of a warm 3000-address run on small objects).
from amddbg.dwarf.index import CuRanges, LazySubs, SubroutineMap
from amddbg.dwarf.lines import LineTable

FORMAT = "amddbg-dwarf-index-2"


def enabled() -> bool:
    return os.environ.get("AMDDBG_NO_CACHE", "") not in ("1", "true", "yes")


def cache_dir() -> str:
    """The cache directory (a plain path string: pathlib would add ~3 ms to every start)."""
    d = os.environ.get("AMDDBG_CACHE_DIR")
    if d:
        return d
    x = os.environ.get("XDG_CACHE_HOME")
    base = x if x else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "amddbg")


def _read_text(path: str) -> str:
    with open(path) as f:
        return f.read()


def _arr(code: str, blob: bytes) -> memoryview:
    """A typed read-only view of a stored integer array: indexing, ``len`` and ``bisect`` work on it
    as on an ``array``, without copying the blob (megabytes for a large object's line table)."""
    return memoryview(blob).cast(code)


class IndexCache:
    def __init__(self, path: str, key: str, size: int, mtime: float | None) -> None:
        self.path = path
        self.key = key
        self.size = size
        self.mtime = mtime
        self.loaded = False

    @classmethod
    def for_image(cls, image, key: str | None = None) -> IndexCache:
        """Cache for ``image``. The content sha256 names the file; for a file on disk, a stat
        alias file (path, size, mtime_ns) -> sha256 saves hashing it again on the next run."""
        import zlib

        mtime = None
        alias = real = None
        try:
            st = os.stat(image.name)
            if st.st_size == len(image.view):
                mtime = st.st_mtime
                real = os.path.realpath(image.name)
                alias = f"{zlib.crc32(real.encode()):08x}-{st.st_size}-{st.st_mtime_ns}"
        except OSError:
            pass
        d = cache_dir()
        if key is None and alias is not None:
            try:
                k, _, p = _read_text(os.path.join(d, f"stat-{alias}")).partition("\n")
                if len(k) == 64 and all(c in "0123456789abcdef" for c in k) and p.rstrip("\n") == real:
                    key = k
            except OSError:
                pass
        if key is None:
            import hashlib

            key = hashlib.sha256(image.view).hexdigest()
            if alias is not None:
                try:
                    os.makedirs(d, exist_ok=True)
                    with open(os.path.join(d, f"stat-{alias}"), "w") as f:
                        f.write(f"{key}\n{real}\n")
                except OSError:
                    pass
        return cls(os.path.join(d, f"index-{key}.sqlite"), key, len(image.view), mtime)

    # ------------------------------------------------------------------ read
    def load(self, dwarf):
        """A ``CachedIndex`` for ``dwarf`` or None if there is no usable cache file."""
        if not os.path.exists(self.path):
            return None
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            meta = dict(db.execute("SELECT key, value FROM meta"))
            if meta.get("format") != FORMAT or meta.get("sha256") != self.key:
                db.close()
                return None
            idx = CachedIndex(dwarf, db, meta)
        except (sqlite3.Error, ValueError, KeyError, json.JSONDecodeError):
            return None
        self.loaded = True
        return idx

    # ------------------------------------------------------------------ write
    def store(self, index) -> None:
        import tempfile

        from amddbg.dwarf.index import subs_to_columns

        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".index-", suffix=".tmp", dir=os.path.dirname(self.path))
            os.close(fd)
            db = sqlite3.connect(tmp)
            db.executescript(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
                "CREATE TABLE units (cu INTEGER PRIMARY KEY, subs TEXT, keys BLOB, highs BLOB, idx BLOB,"
                " line_offset INTEGER, line_meta TEXT, addrs BLOB, files BLOB, lines BLOB, cols BLOB,"
                " flags BLOB, discs BLOB, subcols BLOB);")
            cr = index.cu_ranges
            syms = index.symbols
            meta = {"format": FORMAT, "sha256": self.key, "size": str(self.size),
                    "mtime": str(self.mtime), "name": index.dwarf.name,
                    "cu_los": cr.los.tobytes().hex(), "cu_his": cr.his.tobytes().hex(),
                    "cu_cus": cr.cus.tobytes().hex(), "symbols": json.dumps(syms.to_data())}
            db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            cus = set(index.submaps) | set(index.line_tables)
            for cu in sorted(cus):
                m = index.submaps.get(cu)
                t = index.line_tables.get(cu)
                row = [cu, None, None, None, None, None, None, None, None, None, None, None, None, None]
                if m is not None:
                    strings, flat = subs_to_columns(m.subs)
                    row[1] = json.dumps(strings, separators=(",", ":"))
                    row[2], row[3], row[4] = m.keys.tobytes(), m.highs.tobytes(), m.idx.tobytes()
                    row[13] = flat.tobytes()
                if t is not None:
                    lm, cols = t.to_data()
                    row[5] = t.offset
                    row[6] = json.dumps(lm, separators=(",", ":"))
                    row[7:13] = [cols[c] for c in t.COLUMNS]
                db.execute("INSERT INTO units VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
            db.commit()
            db.close()
            os.replace(tmp, self.path)
        except (OSError, sqlite3.Error):
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass


class CachedIndex:
    """Same interface as ``AddressIndex`` but reading units from the cache file on demand."""

    def __init__(self, dwarf, db, meta: dict) -> None:
        from amddbg.dwarf.symtab import SymbolTable

        self.dwarf = dwarf
        self.db = db
        self.cu_ranges = CuRanges(_arr("Q", bytes.fromhex(meta["cu_los"])),
                                  _arr("Q", bytes.fromhex(meta["cu_his"])),
                                  _arr("Q", bytes.fromhex(meta["cu_cus"])))
        self.symbols = SymbolTable.from_data(json.loads(meta["symbols"]))
        self.submaps: dict = {}
        self.line_tables: dict = {}
        self._rows: dict[int, tuple | None] = {}

    def cu_for(self, address: int):
        return self.cu_ranges.find(address)

    def _row(self, cu: int):
        if cu not in self._rows:
            self._rows[cu] = self.db.execute("SELECT * FROM units WHERE cu = ?", (cu,)).fetchone()
        return self._rows[cu]

    def chain(self, cu: int, address: int):
        m = self.submaps.get(cu)
        if m is None:
            r = self._row(cu)
            if r is None or r[1] is None:
                return []
            subs = LazySubs(json.loads(r[1]), _arr("q", r[13]))
            m = self.submaps[cu] = SubroutineMap(subs, _arr("Q", r[2]), _arr("Q", r[3]), _arr("i", r[4]))
        return m.chain(address)

    def lines(self, cu: int):
        t = self.line_tables.get(cu, 0)
        if t != 0:
            return t
        r = self._row(cu)
        t = None
        if r is not None and r[6] is not None:
            cols = dict(zip(LineTable.COLUMNS, r[7:13], strict=True))
            t = LineTable.from_data(self.dwarf, r[5], json.loads(r[6]), cols)
        self.line_tables[cu] = t
        return t

    def complete(self) -> None:
        return None

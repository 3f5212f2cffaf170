"""Quiz files this very code has already checked in full: a stamp per (file text, checking code).

Checking a quiz file (the JSON Schema, then the semantic checks) costs a grading run half a second of start-up,
most of it importing jsonschema; one late submission or a Gradescope job pays it every time for files that
have not changed. A stamp is an empty file named by the SHA-256 of the file's text, of every source file of
the quiz package (and the visibilities it accepts) and of the check's options: an edited quiz, a changed
checker or another kit version is a different name, so a stamp can never vouch for what it did not check.
It holds no data (nothing is read back but its existence), and a cache that cannot be written only costs the
check next time.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

ENV = "ATTNKIT_CACHE"  # the cache folder; default $XDG_CACHE_HOME/attnkit or ~/.cache/attnkit; "" turns it off
_PACKAGE = Path(__file__).resolve().parent
_CHECKER_SOURCES = (*sorted(_PACKAGE.glob("*.py")), _PACKAGE.parent / "gradescope" / "visibility.py")
_CHECKER_LIBRARIES = ("jsonschema", "yaml", "rapidfuzz")  # an upgrade changes the name too (path, size, time)


def cache_dir() -> Path | None:
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "attnkit"


@functools.cache
def _checker_digest() -> bytes:
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    for path in _CHECKER_SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in _CHECKER_LIBRARIES:
        spec = importlib.util.find_spec(name)  # found, not imported
        origin = spec.origin if spec is not None and spec.origin else ""
        stat = os.stat(origin) if origin else None
        digest.update(f"{name}:{origin}:{stat and stat.st_size}:{stat and stat.st_mtime_ns}\0".encode())
    return digest.digest()


def _stamp(text: str, options: str) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    name = hashlib.sha256(_checker_digest() + options.encode() + b"\0" + text.encode("utf-8")).hexdigest()
    return folder / "quiz-checked" / name


def already_checked(text: str, options: str) -> bool:
    stamp = _stamp(text, options)
    return stamp is not None and stamp.is_file()


def mark_checked(text: str, options: str) -> None:
    stamp = _stamp(text, options)
    if stamp is None:
        return
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()  # empty: an interrupted write leaves a valid stamp or none
    except OSError:
        pass

"""Unpack a zip that a student (or a platform) handed in, refusing what could harm the grading machine.

Refused as a whole, with the reason: an archive that is not a zip or is encrypted, a member whose path
leads outside the archive (absolute, `..`, a drive letter), more members or more bytes than the limits, a
member that expands more than MAX_RATIO times beyond a megabyte (a zip bomb). Byte counts are measured
while writing, never taken from the archive's own headers. Links inside the archive are not created
(they are listed as skipped), nor are hidden files and macOS metadata (`__MACOSX/`).
"""
from __future__ import annotations

import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MAX_RATIO = 100            # compressed -> uncompressed, for members above 1 MiB
CHUNK = 1 << 16


@dataclass(frozen=True)
class Limits:
    members: int
    total_bytes: int
    member_bytes: int


STUDENT_ZIP = Limits(members=500, total_bytes=64 << 20, member_bytes=24 << 20)
CLASS_ZIP = Limits(members=20_000, total_bytes=2 << 30, member_bytes=64 << 20)


class Refused(ValueError):
    """The archive is not unpacked; str() is the sentence to show."""


@dataclass
class Unpacked:
    folder: Path
    skipped: list[str] = field(default_factory=list)   # member names not created (links)


def _member_path(name: str) -> PurePosixPath | None:
    """The member's relative path, or None when it would land outside the target folder."""
    text = name.replace("\\", "/")
    path = PurePosixPath(text)
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or ".." in path.parts:
        return None
    return path


def _ignored(path: PurePosixPath) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in path.parts)


def unpack(archive: Path, target: Path, limits: Limits = STUDENT_ZIP) -> Unpacked:
    """Unpack `archive` into the new folder `target`; raise Refused with the reason instead."""
    name = archive.name
    try:
        handle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Refused(f"{name} is not a readable zip archive ({exc.__class__.__name__})") from None
    with handle:
        members = handle.infolist()
        if len(members) > limits.members:
            raise Refused(f"{name} holds {len(members)} files, more than the {limits.members} a submission may hold")
        for info in members:
            if _member_path(info.filename) is None:
                raise Refused(f"{name} holds a path that leads outside the archive ({info.filename[:80]!r}); "
                              "it was not unpacked")
            if info.flag_bits & 0x1:
                raise Refused(f"{name} is encrypted; hand in a zip without a password")
        target.mkdir(parents=True, exist_ok=False)
        result, total = Unpacked(target), 0
        try:
            for info in members:
                path = _member_path(info.filename)
                if info.is_dir() or _ignored(path) or not path.parts:
                    continue
                if stat.S_ISLNK(info.external_attr >> 16):
                    result.skipped.append(f"{info.filename} (a link)")
                    continue
                total += _extract(handle, info, target / path, limits, total, name)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
    return result


def _extract(handle: zipfile.ZipFile, info: zipfile.ZipInfo, destination: Path, limits: Limits, so_far: int,
             name: str) -> int:
    destination.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        with handle.open(info) as source, open(destination, "wb") as out:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > limits.member_bytes:
                    raise Refused(f"{name}: {info.filename[:80]} unpacks to more than {limits.member_bytes >> 20} MiB")
                if so_far + written > limits.total_bytes:
                    raise Refused(f"{name} unpacks to more than {limits.total_bytes >> 20} MiB")
                if written > 1 << 20 and written > MAX_RATIO * max(info.compress_size, 1):
                    raise Refused(f"{name} expands more than {MAX_RATIO} times (a zip bomb?); it was not unpacked")
                out.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, RuntimeError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None and exc.errno in (28, 122):  # ENOSPC, EDQUOT
            raise
        raise Refused(f"{name} could not be unpacked ({exc.__class__.__name__})") from None
    return written

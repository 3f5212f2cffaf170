"""Unpack a zip that a student (or a platform) handed in, refusing what could harm the grading machine.

Refused as a whole, with the reason: an archive that is not a zip or is encrypted, a member whose path
leads outside the archive (absolute, `..`, a drive letter) or is deeper or longer than MAX_PATH_PARTS /
MAX_PATH_CHARS, more members or more bytes than the limits (the member count is read from the archive's
end record before its directory is loaded), a member that expands more than MAX_RATIO times beyond a
megabyte (a zip bomb), members that cannot all be created (a file and a folder of one name). Byte counts
are measured while writing, never taken from the archive's own headers. Links inside the archive are not
created (they are listed as skipped), nor are hidden files, macOS metadata (`__MACOSX/`) and members whose
names hold control characters.

A member name without the zip's UTF-8 flag is read as UTF-8 when its bytes are valid UTF-8, else as the
legacy code page (CP437): Info-ZIP's `zip` (Linux, macOS) writes UTF-8 names without the flag, and reading
them as CP437 would turn "zoë" into "zo├½" and lose the student.
"""
from __future__ import annotations

import re
import shutil
import stat
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MAX_RATIO = 100            # compressed -> uncompressed, for members above 1 MiB
MAX_PATH_PARTS = 32        # folders deep, the file included
MAX_PATH_CHARS = 1024      # characters of a member's path (a part: 255 bytes, as file systems allow)
CHUNK = 1 << 16
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_UTF8_FLAG = 0x800


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


def _read_names(members: list[zipfile.ZipInfo]) -> None:
    """Re-read each name zipfile decoded as CP437 (UTF-8 flag clear) as UTF-8 where its bytes are valid UTF-8.
    Only `filename` changes: zipfile checks `orig_filename` against the member's local header."""
    for info in members:
        if info.flag_bits & _UTF8_FLAG:
            continue
        raw = info.orig_filename.encode("cp437")  # CP437 maps all 256 bytes: the name's bytes, exactly
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if name != info.orig_filename:
            info.filename = name.split("\x00", 1)[0]


def _member_path(name: str) -> PurePosixPath | None:
    """The member's relative path, or None when it would land outside the target folder."""
    text = name.replace("\\", "/")
    path = PurePosixPath(text)
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or ".." in path.parts:
        return None
    return path


def _too_deep(name: str) -> str | None:
    """Why a member's path is beyond the bounds (too deep, too long), else None."""
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    if len(parts) > MAX_PATH_PARTS:
        return f"a path {len(parts)} folders deep (at most {MAX_PATH_PARTS})"
    if len(name) > MAX_PATH_CHARS or any(len(p.encode("utf-8", "replace")) > 255 for p in parts):
        return f"a path longer than a file system allows (at most {MAX_PATH_CHARS} characters, 255 bytes a name)"
    return None


def member_count(archive: Path) -> int | None:
    """How many members the archive's end record declares (zip64 included), read without loading its
    directory; None when there is no such record (zipfile then says what is wrong)."""
    try:
        with open(archive, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - (22 + 0xFFFF)))
            tail = handle.read()
            at = tail.rfind(b"PK\x05\x06")
            if at < 0 or len(tail) < at + 22:
                return None
            count = struct.unpack("<H", tail[at + 10:at + 12])[0]
            if count != 0xFFFF or at < 20 or tail[at - 20:at - 16] != b"PK\x06\x07":
                return count
            handle.seek(struct.unpack("<Q", tail[at - 12:at - 4])[0])  # the zip64 end record
            record = handle.read(56)
            return struct.unpack("<Q", record[32:40])[0] if record[:4] == b"PK\x06\x06" else None
    except (OSError, struct.error, ValueError, OverflowError):
        return None


def _ignored(path: PurePosixPath) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in path.parts)


def unpack(archive: Path, target: Path, limits: Limits = STUDENT_ZIP) -> Unpacked:
    """Unpack `archive` into the new folder `target`; raise Refused with the reason instead."""
    name = archive.name
    try:
        size = archive.stat().st_size
    except OSError as exc:
        raise Refused(f"{name} could not be read ({exc.__class__.__name__})") from None
    if size > limits.total_bytes:  # its directory alone could be more than a submission may hold
        raise Refused(f"{name} is larger than {limits.total_bytes >> 20} MiB")
    declared = member_count(archive)
    if declared is not None and declared > limits.members:
        raise Refused(f"{name} holds {declared} files, more than the {limits.members} a submission may hold")
    try:
        handle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Refused(f"{name} is not a readable zip archive ({exc.__class__.__name__})") from None
    with handle:
        members = handle.infolist()
        _read_names(members)
        if len(members) > limits.members:
            raise Refused(f"{name} holds {len(members)} files, more than the {limits.members} a submission may hold")
        for info in members:
            if _member_path(info.filename) is None:
                raise Refused(f"{name} holds a path that leads outside the archive ({info.filename[:80]!r}); "
                              "it was not unpacked")
            deep = _too_deep(info.filename)
            if deep:
                raise Refused(f"{name} holds {deep}; it was not unpacked")
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
                if _CONTROL.search(info.filename):
                    result.skipped.append(f"{info.filename[:80]!r} (control characters in its name)")
                    continue
                total += _extract(handle, info, target / path, limits, total, name)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
    return result


def _extract(handle: zipfile.ZipFile, info: zipfile.ZipInfo, destination: Path, limits: Limits, so_far: int,
             name: str) -> int:
    written = 0
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
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
        raise Refused(f"{name} could not be unpacked ({exc.__class__.__name__} at {info.filename[:80]!r})") from None
    return written

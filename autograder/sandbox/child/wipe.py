"""Remove a folder tree that student code made, whatever it holds.

No recursion and no long paths: every folder met is renamed to the top, beside the tree being removed,
so the depth worked at is one however deep the tree was (a 3,000-deep chain of folders costs what 3,000
folders side by side cost) and only two file descriptors are open at a time. A folder without rights
(mode 000) is given them back before it is entered; names are used as the kernel gives them (bytes
that are not UTF-8 included). Whatever cannot be removed is returned, never raised: the caller gives
the next child a fresh folder anyway.

Used by the fork server after every child, once all of the child's processes are dead (so nothing
changes under it), and by the parent for the scratch base of a server it closes.
"""
from __future__ import annotations

import itertools
import os
import stat

_serial = itertools.count()
OWNER_ALL = 0o700


def remove_tree(path: str) -> list[str]:
    """Remove `path` (a folder, a file or a link; absent is fine). Returns the paths left behind."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        top = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return [path] if os.path.lexists(path) else []
    try:
        return _remove_under(top, parent, name)
    finally:
        os.close(top)


def _remove_under(top: int, parent: str, name: str) -> list[str]:
    left: list[str] = []
    try:
        info = os.stat(name, dir_fd=top, follow_symlinks=False)
    except FileNotFoundError:
        return left
    except OSError:
        return [os.path.join(parent, name)]
    if not stat.S_ISDIR(info.st_mode):
        _unlink(top, name, os.path.join(parent, name), left)
        return left
    pending = [name]  # folders directly under `top`, each to be emptied, then removed
    while pending:
        folder = pending.pop()
        where = os.path.join(parent, folder)
        fd = _enter(top, folder)
        if fd is None:
            left.append(where)
            continue
        try:
            with os.scandir(fd) as entries:
                children = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
            for child, is_dir in children:
                if not is_dir:
                    _unlink(fd, child, os.path.join(where, child), left)
                    continue
                try:
                    os.rmdir(child, dir_fd=fd)  # an empty folder needs no visit
                    continue
                except OSError:
                    pass
                flat = f".wipe-{os.getpid()}-{next(_serial)}"
                try:
                    _grant(fd, child)  # moving a folder to another parent needs write access to it
                    os.rename(child, flat, src_dir_fd=fd, dst_dir_fd=top)
                    pending.append(flat)
                except OSError:
                    left.append(os.path.join(where, child))
        except OSError:
            left.append(where)
        finally:
            os.close(fd)
        try:
            os.rmdir(folder, dir_fd=top)
        except FileNotFoundError:
            pass
        except OSError:
            if where not in left:
                left.append(where)
    return left


def _grant(fd: int, name: str) -> None:
    """Give the owner every right on a folder (it was just seen as a folder, not a link, and nothing that
    could swap it is alive). Not an error when it fails: as root, rights are not needed."""
    try:
        os.chmod(name, OWNER_ALL, dir_fd=fd)
    except OSError:
        pass


def _enter(top: int, name: str) -> int | None:
    """Open a folder for emptying, after giving it back the rights (read, and write for removing what it holds)."""
    _grant(top, name)
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=top)
    except OSError:
        return None


def _unlink(fd: int, name: str, where: str, left: list[str]) -> None:
    try:
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        pass
    except OSError:
        left.append(where)

"""Pieces shared by several attacks (not an attack itself: modules starting with _ are skipped)."""
from __future__ import annotations

from autograder.sandbox.config import SandboxLimits
from tests.classroom import solution_text, stub_text

SHA = "single_head_attention"
SCORES = "attention_scores"

# A plausible but wrong single_head_attention (no 1/sqrt(d_k) scale): right shapes, wrong values.
WRONG_SHA = stub_text(SHA) + '''

def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_q), self.W_V(x_q), mask)
'''

# Gives the calling process a recognisable name (at most 15 characters) for the leftover scan.
NAME_PROCESS = '''
def _attnkit_name(text):
    import ctypes
    ctypes.CDLL(None).prctl(15, text.encode(), 0, 0, 0)  # PR_SET_NAME
'''

# Destructive attacks act only when a harmless probe shows that the sandbox holds: not root, and no new
# file can be made in the kit, the class or the output folder (a child may share the grader's uid).
GUARD = '''
import os as _os


def _can_create(folder):
    probe = _os.path.join(folder, ".attnkit-probe-%d" % _os.getpid())
    try:
        _os.close(_os.open(probe, _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL, 0o600))
    except OSError:
        return False
    _os.unlink(probe)
    return True


_SAFE = _os.getuid() != 0 and not any(_can_create(f) for f in ("__KIT_DIR__", "__CLASS_DIR__", "__SELF_DIR__",
                                                              "__OUT_DIR__"))
if not _SAFE:
    print("ATTNKIT-LEAK student code runs as uid", _os.getuid(), "and can write the kit or the class - refusing "
          "to do damage")
'''

__all__ = ["SHA", "SCORES", "WRONG_SHA", "NAME_PROCESS", "GUARD", "FOOTPRINT", "FOOTPRINT_LIMIT", "ENTRY_LIMIT",
           "FOLDER_LIMIT",
           "solution_text",
           "stub_text"]

# What a metadata attack measures of what it made (no file data: RLIMIT_FSIZE is 0): the blocks of every entry
# of its scratch folder (folders, long link targets and extended attribute blocks on a disk; pages on tmpfs),
# the extended attributes' bytes, and a kibibyte per entry for the inode itself (tmpfs keeps inodes in kernel
# memory, where no block count shows them). Above FOOTPRINT_LIMIT bytes, or ENTRY_LIMIT names, the attack reached
# its goal. The bytes are far above what the bounded sandbox lets a child make (SandboxLimits.scratch_entries
# names, no links, no attributes, no preallocated blocks: a few MiB) and below what an unbounded one makes in a
# few seconds; the names are the child's allowance and what the wipe finds beside it.
FOOTPRINT_LIMIT = 48 << 20
ENTRY_LIMIT = SandboxLimits().scratch_entries + 64
FOLDER_LIMIT = SandboxLimits().scratch_folders + 16
FOOTPRINT = '''
import os as _fp_os
import time as _fp_time


def _footprint(top="."):
    """(bytes, entries) of everything under top and top's own blocks (a folder of many names grows), each
    inode's blocks once, links not followed."""
    seen, total, entries, stack = set(), _fp_os.lstat(top).st_blocks * 512, 0, [top]
    global _fp_folders
    _fp_folders = 0
    while stack:
        folder = stack.pop()
        try:
            found = list(_fp_os.scandir(folder))
        except OSError:
            continue
        for entry in found:
            entries += 1
            total += 1024
            try:
                info = entry.stat(follow_symlinks=False)
                for name in _fp_os.listxattr(entry.path, follow_symlinks=False):
                    total += len(name) + len(_fp_os.getxattr(entry.path, name, follow_symlinks=False))
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += info.st_blocks * 512
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
                _fp_folders += 1
    return total, entries


def _flood(make, seconds=2.5, cap=__FOOTPRINT_CAP__, check_every=500):
    """Call make(i) until it fails 50 times in a row, `seconds` of CPU pass, or the footprint passes cap."""
    start, made, failures, why = _fp_time.process_time(), 0, 0, "nothing"
    index = 0
    while failures < 50 and _fp_time.process_time() - start < seconds:
        index += 1
        try:
            make(index)
            made += 1
            failures = 0
        except OSError as exc:
            failures += 1
            why = f"{type(exc).__name__} errno {exc.errno}"
        if index % check_every == 0 and _footprint()[0] > cap:
            break
    return made, why


def _report(what, made, why, extra=0):
    size, entries = _footprint()
    size += extra
    print(f"footprint: {size} bytes in {entries} entries ({_fp_folders} folders) after {made} {what} "
          f"(stopped by {why})")
    if size > __FOOTPRINT_LIMIT__:
        print(f"ATTNKIT-LEAK {what}: {size >> 20} MiB of disk or kernel memory without writing a byte")
    if entries > __ENTRY_LIMIT__ or _fp_folders > __FOLDER_LIMIT__:
        print(f"ATTNKIT-LEAK {what}: {entries} names ({_fp_folders} folders) in the scratch folder, past the "
              "sandbox's allowance")
'''
for _name, _value in (("__FOOTPRINT_LIMIT__", FOOTPRINT_LIMIT), ("__ENTRY_LIMIT__", ENTRY_LIMIT),
                      ("__FOLDER_LIMIT__", FOLDER_LIMIT),
                      ("__FOOTPRINT_CAP__", 2 * FOOTPRINT_LIMIT)):
    FOOTPRINT = FOOTPRINT.replace(_name, str(_value))

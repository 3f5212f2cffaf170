from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "tmpfile"
ATTACK = ("writes a 2 GB file to /tmp, then 300 files of 1 MiB and a folder of files, in /tmp, "
          "/var/tmp, /dev/shm and HOME; then the correct solution")
CODE = solution_text(ASSIGNMENT) + '''
import os

_CHUNK = b"x" * (16 << 20)
_written = {}


def _fill(path, size):
    done = 0
    try:
        with open(path, "wb", buffering=0) as handle:
            while done < size:
                done += handle.write(_CHUNK[: min(len(_CHUNK), size - done)])
    except OSError as exc:
        _written[path] = (done, type(exc).__name__)
        return done
    _written[path] = (done, "ok")
    return done


_fill("/tmp/__MARK__-huge", 2 << 30)
for folder in ["/tmp", "/var/tmp", "/dev/shm", os.path.expanduser("~")]:
    for i in range(300 if folder == "/tmp" else 3):
        if _fill(f"{folder}/__MARK__-{i}", 1 << 20) == 0 and i > 2:
            break
try:
    os.makedirs("/tmp/__MARK__-dir/inner", exist_ok=True)
    _fill("/tmp/__MARK__-dir/inner/data", 1 << 20)
except OSError as exc:
    print("no folder:", type(exc).__name__)
_total = sum(done for done, _ in _written.values())
print("bytes written to scratch places:", _total, sorted({why for _, why in _written.values()}))
if _total > (1 << 20):
    print("ATTNKIT-LEAK wrote", _total, "bytes of files")
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "bytes written to scratch places: 0"
SAME_SCORE = True

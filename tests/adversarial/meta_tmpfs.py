from ._snippets import FOOTPRINT, SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "tmpfs"
ATTACK = ("takes disk blocks or tmpfs pages without writing: fallocate(FALLOC_FL_KEEP_SIZE) of 16 MiB on empty "
          "files of its scratch folder (the size stays 0, so RLIMIT_FSIZE never sees it), and on memfd files and "
          "/dev/shm files, which no address space limit counts")
CODE = solution_text(ASSIGNMENT) + FOOTPRINT + '''
import ctypes as _ctypes

_libc = _ctypes.CDLL(None, use_errno=True)
_KEEP_SIZE = 1


def _reserve(fd):
    if _libc.fallocate(fd, _KEEP_SIZE, _ctypes.c_long(0), _ctypes.c_long(16 << 20)) != 0:
        errno = _ctypes.get_errno()
        raise OSError(errno, _fp_os.strerror(errno))


def _make(i):
    fd = _fp_os.open(f"__MARK__-{i}", _fp_os.O_CREAT | _fp_os.O_RDWR, 0o600)
    try:
        _reserve(fd)
    finally:
        _fp_os.close(fd)


_made, _why = _flood(_make, check_every=1)
_kept, _held = [], 0
for _place in ("memfd", "/dev/shm", "/tmp"):
    for _ in range(12):
        try:
            if _place == "memfd":
                fd = _fp_os.memfd_create("__MARK__")
            else:
                fd = _fp_os.open(f"{_place}/__MARK__-{len(_kept)}", _fp_os.O_CREAT | _fp_os.O_RDWR, 0o600)
            _kept.append(fd)
            _reserve(fd)
            _held += _fp_os.fstat(fd).st_blocks * 512
        except OSError as _exc:
            _why += f"; {_place}: {type(_exc).__name__} errno {_exc.errno}"
            break
_report("16 MiB reservations", _made, _why, extra=_held)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "footprint:"
SAME_SCORE = True

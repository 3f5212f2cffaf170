from ._snippets import FOOTPRINT, SHA, solution_text

ASSIGNMENT = SHA
TAG = "empty"
ATTACK = ("fills the disk (or tmpfs memory) with empty files: as many as it can make in one folder, each with a "
          "250-byte name (the folder grows by a block every 15 names; an inode each), and unnamed O_TMPFILE files")
CODE = solution_text(ASSIGNMENT) + FOOTPRINT + '''
_made, _why = _flood(lambda i: _fp_os.close(_fp_os.open(f"__MARK__-{i:0>235}",
                                                         _fp_os.O_CREAT | _fp_os.O_EXCL | _fp_os.O_WRONLY, 0o600)))
_unnamed = []
try:
    for _ in range(40):
        _unnamed.append(_fp_os.open(".", _fp_os.O_TMPFILE | _fp_os.O_RDWR, 0o600))
except OSError as _exc:
    _why += f"; O_TMPFILE stopped at {len(_unnamed)} ({type(_exc).__name__})"
_report("empty files", _made + len(_unnamed), _why)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "footprint:"
SAME_SCORE = True

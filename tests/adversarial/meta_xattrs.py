from ._snippets import FOOTPRINT, SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "xattr"
ATTACK = ("fills the disk (or tmpfs memory) with extended attributes: 4,000-byte user attributes on its scratch "
          "folder and on every empty file and folder it can make (a block each on a disk)")
CODE = solution_text(ASSIGNMENT) + FOOTPRINT + '''
_on_scratch = "refused"
try:
    _fp_os.setxattr(".", "user.__MARK__", b"y" * 4000)
    _on_scratch = "set"
except OSError as _exc:
    _on_scratch = f"refused ({type(_exc).__name__} errno {_exc.errno})"
print("attribute on the scratch folder:", _on_scratch)


def _make(i):
    name = f"__MARK__-{i}"
    try:
        _fp_os.close(_fp_os.open(name, _fp_os.O_CREAT | _fp_os.O_WRONLY, 0o600))
    except OSError:
        name = "."  # no new file: more attributes on what exists
    _fp_os.setxattr(name, f"user.a{i}" if name == "." else "user.a", b"y" * 4000)


_made, _why = _flood(_make)
_report("attributes", _made, _why)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "footprint:"
SAME_SCORE = True

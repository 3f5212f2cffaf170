from ._snippets import FOOTPRINT, SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "dirs"
ATTACK = ("fills the disk (or tmpfs memory) with folders: as many as it can make with 250-byte names (a block "
          "each on a disk, an inode each on tmpfs), then a chain of folders 400 deep")
CODE = solution_text(ASSIGNMENT) + FOOTPRINT + '''
_made, _why = _flood(lambda i: _fp_os.mkdir(f"__MARK__-{i:0>235}"))
_top = _fp_os.open(".", _fp_os.O_RDONLY)
_depth = 0
try:
    _fp_os.mkdir("__MARK__-deep")
    _fp_os.chdir("__MARK__-deep")
    for _depth in range(1, 401):
        _fp_os.mkdir("d")
        _fp_os.chdir("d")
except OSError as _exc:
    _why += f"; the chain stopped at {_depth} ({type(_exc).__name__} errno {_exc.errno})"
finally:
    _fp_os.fchdir(_top)
    _fp_os.close(_top)
_report("folders", _made + _depth, _why)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "footprint:"
SAME_SCORE = True

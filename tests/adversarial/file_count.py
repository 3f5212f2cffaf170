from ._snippets import SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "count"
# Sized to stay well inside the 6 s CPU budget of a load call on a busy machine (60,000 files did not, with
# two test workers): the wipe is what is tested, and it is tested by the count, not by the limit.
ATTACK = ("a huge count of files for the wipe: 25,000 empty files, 2,000 folders of 5 files and a folder of "
          "hard links, with names that are newlines, dashes, dots and bytes in no encoding (the sandbox's "
          "allowance of names stops it first)")
CODE = solution_text(ASSIGNMENT) + '''
import os

_made = 0
try:
    os.mkdir("__MARK__-flat")
    for _index in range(25_000):
        os.close(os.open(f"__MARK__-flat/{_index}", os.O_CREAT | os.O_WRONLY, 0o600))
        _made += 1
    for _index in range(2_000):
        _folder = f"__MARK__-wide/{_index}"
        os.makedirs(_folder)
        for _name in ("-rf", "\\n", "...", " ", "x"):
            os.close(os.open(os.path.join(_folder, _name), os.O_CREAT | os.O_WRONLY, 0o600))
            _made += 1
    os.mkdir("__MARK__-links")
    for _index in range(2_000):
        os.link("__MARK__-flat/0", f"__MARK__-links/{_index}")
        _made += 1
    _bytes = os.fsencode("__MARK__-bytes")
    os.mkdir(_bytes)
    for _index in range(256):
        os.close(os.open(_bytes + b"/" + bytes([_index or 1, 0xFF, 0xC0]), os.O_CREAT | os.O_WRONLY, 0o600))
        _made += 1
except OSError as _exc:
    print("stopped after", _made, _exc)
print("files made", _made)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "files made"
SAME_SCORE = True

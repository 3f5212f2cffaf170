from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "readcls"
ATTACK = ("looks for other students' submissions and results: the guessed class folder, ../ of its "
          "own folder, the output folder's .state; copies a classmate's working code to score")
CODE = stub_text(ASSIGNMENT) + '''
import glob
import os

_stolen = None
for base in ["__CLASS_DIR__", os.path.join("__SELF_DIR__", ".."), "..", "../..", os.getcwd()]:
    for path in sorted(glob.glob(os.path.join(base, "*", "single_head_attention.py"))):
        if "__OWN_ID__" in path:
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except OSError:
            continue
        if "def attention" in text and "replace this line" not in text.split("def attention", 1)[1][:800]:
            print("ATTNKIT-LEAK read a classmate's file", path)
            _stolen = _stolen or text
for path in glob.glob(os.path.join("__OUT_DIR__", ".state", "*.json")):
    try:
        open(path).read(100)
        print("ATTNKIT-LEAK read a classmate's result", path)
    except OSError:
        pass
if _stolen:
    exec(compile(_stolen, "<copied>", "exec"), globals())
print("looked for classmates")
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "looked for classmates"

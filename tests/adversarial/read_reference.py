from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "readref"
ATTACK = ("looks for the reference solution and the hidden tests on disk: through the kit's own "
          "package (import autograder.paths), the guessed kit path, the editable-install finder in "
          "site-packages, other processes' command lines and cwd, ../ from everywhere, and a walk of / "
          "for 'solutions' folders; executes a found reference to score")
CODE = stub_text(ASSIGNMENT) + '''
import glob
import os
import sys
import time

_found = {}


def _look(path, why):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return
    if "def attention" in text and "NotImplementedError(\\"attention:" not in text:
        _found.setdefault("reference", (path, why, text))
    if "def reference_attention" in text or "pytest.mark.points" in text:
        _found.setdefault("hidden tests", (path, why, text))


def _search():
    try:
        import autograder.paths as kit
        _look(str(kit.SOLUTIONS_DIR / "single_head_attention" / "single_head_attention.py"), "import autograder")
        _look(str(kit.GRADERS_DIR / "test_single_head_attention.py"), "import autograder")
    except Exception:
        pass
    for root in ["__KIT_DIR__", os.path.expanduser("~"), os.getcwd(), "..", "../..", "/work", "/srv", "/opt",
                 "/home", "/autograder", "/root"]:
        for pattern in ["solutions/*/*.py", "*/solutions/*/*.py", "autograder/graders/*.py",
                        "*/autograder/graders/*.py", "source/*.py"]:
            for path in glob.glob(os.path.join(root, pattern)):
                _look(path, "guessed " + root)
    for folder in sys.path:
        for finder in glob.glob(os.path.join(folder, "__editable__*finder.py")):
            try:
                text = open(finder).read()
            except OSError:
                continue
            for token in text.split("'"):
                if token.startswith("/") and os.path.isdir(token):
                    _look(os.path.join(os.path.dirname(token), "solutions", "single_head_attention",
                                       "single_head_attention.py"), "editable finder")
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = [str(p) for p in range(1, os.getpid() + 20000)]
    for pid in pids:
        if pid.isdigit():
            for link in ("cwd", "root"):
                base = f"/proc/{pid}/{link}"
                _look(os.path.join(base, "solutions/single_head_attention/single_head_attention.py"), base)
    start = time.monotonic()
    for top, dirs, files in os.walk("/"):
        if time.monotonic() - start > 4:
            break
        dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
        if os.path.basename(top) in ("solutions", "graders"):
            for name in files:
                _look(os.path.join(top, name), "walk /")


_search()
for kind, (path, why, text) in _found.items():
    print("ATTNKIT-LEAK", kind, "found at", path, "via", why)
if "reference" in _found:
    exec(compile(_found["reference"][2], "<stolen>", "exec"), globals())
print("searched; found:", sorted(_found))
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "searched; found:"

from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "deep"
ATTACK = ("leftovers that stop a wipe: two chains of 20 folders of 250-byte names (past PATH_MAX; deeper ones meet "
          "the sandbox's allowance of 128 folders), mode-000 folders nested in mode-000 folders, folders without "
          "write or search rights, names in no encoding, names of 255 bytes, a link loop (refused); at import and "
          "again from a call (one chain)")
CODE = solution_text(ASSIGNMENT) + '''
import os


def _chain(name, depth):
    top = os.open(".", os.O_RDONLY)
    try:
        os.mkdir(name)
        os.chdir(name)
        for _ in range(depth):
            os.mkdir("d" * 250)
            os.chdir("d" * 250)
        open("bottom", "w").close()
        os.chmod(".", 0)
    finally:
        os.fchdir(top)
        os.close(top)


def _mess(tag, depths=(20, 20)):
    try:
        for number, depth in enumerate(depths):
            _chain(f"__MARK__-chain{number}-" + tag, depth)
        os.makedirs("__MARK__-locked-" + tag + "/a/b/c")
        open("__MARK__-locked-" + tag + "/a/b/c/f", "w").close()
        for folder, mode in (("a/b/c", 0), ("a/b", 0o500), ("a", 0o100), ("", 0)):
            os.chmod(os.path.join("__MARK__-locked-" + tag, folder), mode)
        os.mkdir(os.fsencode("__MARK__-") + b"\\xff\\xfe\\n\\x1b" + tag.encode())
        os.mkdir("__MARK__" + "x" * (255 - len("__MARK__") - len(tag)) + tag)
        print("mess made", tag)
        os.symlink("loop-" + tag, "loop-" + tag)
        os.symlink("/", "__MARK__-root-" + tag)
        print("links made", tag)
    except OSError as exc:
        print("mess stopped", tag, exc)


_mess("import")
_real_attention = attention


def attention(Q, K, V, mask=None):
    if not os.path.lexists("__MARK__-chain0-call"):
        # the call's CPU limit is short, and folder operations cost far more CPU on a machine whose kernel is busy
        _mess("call", (20,))
    return _real_attention(Q, K, V, mask)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "mess made import"
SAME_SCORE = True

"""Near-miss file names: what a browser, an OS or a hurried student makes of `attention_scores.py`.

`Attention_Scores.py`, `attention_scores (1).py`, `attention_scores.py.txt`, `attention-scores.ipynb`,
`Copy of attention_scores.ipynb`, `attention_scores-2.py`: each is graded as the assignment's file, with a
note to the student and the instructor. A name is a near miss when, after case folding, dropping a trailing
`.txt`, a copy marker (` (1)`, ` copy`, `Copy of `, `-2`) and reading spaces, dots and hyphens as
underscores, it is the assignment's name with `.py` or `.ipynb`.
"""
from __future__ import annotations

import re
import unicodedata

RENAMED = "Graded under another name: "  # a note's prefix; the instructor's attention list looks for it
KINDS = ("ipynb", "py")
_WRAPPERS = (".txt", ".text", ".json")
_COPY_MARKERS = re.compile(r"(\s*\(\d+\)|\s*[-_ ]\s*copy(\s*\d+)?|[-_ ]\d+)+$")
_COPY_OF = re.compile(r"^(copy of|kopie von|copie de)\s+")


def canonical(name: str) -> tuple[str, str] | None:
    """(stem, kind) that a file name stands for, kind being "py" or "ipynb"; None for other files."""
    text = unicodedata.normalize("NFKC", name).strip().casefold()
    for wrapper in _WRAPPERS:
        inner = text.removesuffix(wrapper)
        if inner != text and inner.endswith(tuple(f".{k}" for k in KINDS)):
            text = inner
            break
    stem, dot, kind = text.rpartition(".")
    if not dot or kind not in KINDS:
        return None
    stem = _COPY_MARKERS.sub("", _COPY_OF.sub("", stem.strip()))
    return re.sub(r"[\s.\-]+", "_", stem.strip()), kind


def kind_of(name: str, assignment: str) -> str | None:
    """"py" or "ipynb" when `name` is the assignment's file, exactly or as a near miss; else None."""
    found = canonical(name)
    return found[1] if found and found[0] == assignment else None


def rename_note(found: str, assignment: str, kind: str) -> str:
    return (f"{RENAMED}{found} was graded as {assignment}.{kind}; name the file {assignment}.{kind} "
            "next time so that it is found for sure.")

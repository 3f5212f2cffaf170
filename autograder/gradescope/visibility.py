"""When students see an answer key on Gradescope.

Gradescope shows each test entry of results.json when its `visibility` says: `visible` (at once),
`after_due_date`, `after_published` (when the instructor publishes grades) or `hidden` (never). With
resubmissions allowed, anything that shows a key at once lets a student submit an empty quiz, read the key
and resubmit. So every entry that reveals a key (a quiz's scores, "Expected: ..." and explanations; a code
check whose message quotes the reference's values, or that its author tagged `reveals-answer`) is released
at `keys` (default `after_due_date`); what reveals nothing stays as authored.

The course default lives in pyproject.toml, which ships in the Gradescope zip; a quiz file may set its own
(`visibility: after_published`), and the pyproject's per-quiz table has the last word:

    [tool.attnkit.gradescope]
    keys = "after_published"                       # every key: after_due_date, after_published, visible
    quizzes = { attention_score = "after_due_date" }  # one quiz differently, whatever its file says

So a quiz's key is released at: its entry in `quizzes`, else its file's `visibility`, else `keys`, else
after the due date.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import paths

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: no setting can be read, so every key waits (the safe side)
    tomllib = None

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
DEFAULT_KEYS = "after_due_date"
REVEALS_TAG = "reveals-answer"
# A message quoting the reference's values ("expected tensor([...", "should be 0.25"), not one naming a
# shape or a symptom ("expected (2, 3)", "row 0 sums to 0.31"): shapes are in the handout, values are not.
_QUOTES_VALUES = re.compile(r"\b(?:expected|reference|should be|correct answer|answer is)\b[^.\n]{0,20}?"
                            r"(?:tensor\(|\[\s*-?\d|-?\d+\.\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class KeyRelease:
    keys: str = DEFAULT_KEYS
    quizzes: dict[str, str] = field(default_factory=dict)  # pyproject, per quiz: the last word
    files: dict[str, str] = field(default_factory=dict)    # quiz id -> the quiz file's own `visibility`

    def for_quiz(self, quiz_id: str) -> str:
        return self.quizzes.get(quiz_id) or self.files.get(quiz_id) or self.keys

    def __post_init__(self) -> None:
        for where, value in [("keys", self.keys), *((f"quizzes.{q}", v) for q, v in self.quizzes.items())]:
            if value not in VISIBILITIES:
                raise ValueError(f"[tool.attnkit.gradescope] {where} = {value!r}: use one of {', '.join(VISIBILITIES)}")
        for quiz_id, value in self.files.items():
            if value not in VISIBILITIES:
                raise ValueError(f"quiz {quiz_id}: visibility {value!r}: use one of {', '.join(VISIBILITIES)}")


def load_release(pyproject: Path | None = None, quiz_dir: Path | None = None) -> KeyRelease:
    """The kit's setting and the quiz files' own; the default where neither says anything. A broken setting
    fails loudly (grading with keys shown by mistake is worse than not grading)."""
    files = quiz_visibilities(quiz_dir or paths.QUIZZES_DIR)
    path = pyproject or paths.ROOT / "pyproject.toml"
    if tomllib is None or not path.is_file():
        return KeyRelease(files=files)
    section = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("attnkit", {}).get("gradescope", {})
    quizzes = section.get("quizzes", {})
    if not isinstance(quizzes, dict):
        raise ValueError("[tool.attnkit.gradescope] quizzes must be a table: { quiz_id = \"after_due_date\" }")
    return KeyRelease(section.get("keys", DEFAULT_KEYS), {str(k): v for k, v in quizzes.items()}, files)


def quiz_visibilities(folder: Path) -> dict[str, str]:
    """quiz id -> `visibility` for the quiz files that set one (the quiz schema checks the value when the quiz
    is loaded for grading; KeyRelease checks it again here)."""
    import yaml

    found: dict[str, str] = {}
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]) if folder.is_dir() else []:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if isinstance(data, dict) and data.get("visibility") is not None:
            found[str(data.get("id", path.stem))] = data["visibility"]
    return found


def reveals_key(output: str, tags: tuple[str, ...] | list[str]) -> bool:
    return REVEALS_TAG in tags or bool(_QUOTES_VALUES.search(output or ""))


def later(visibility: str, release: str) -> str:
    """The later of two visibilities: a test its author hid stays hidden."""
    order = {"visible": 0, "after_due_date": 1, "after_published": 2, "hidden": 3}
    return max(visibility, release, key=lambda v: order.get(v, 3))

"""Build a class of submissions on disk and grade it through the real engine (sandbox included)."""
from __future__ import annotations

from pathlib import Path

from autograder import paths
from autograder.results import StudentResult
from autograder.grading.runner import grade_class


# A correct SingleHeadAttention that leaves all of its work to the file's own `attention` (appended after the
# reference solution): the layer a mistake of attention's must never be charged in.
LAYER_CALLS_ATTENTION = ("class SingleHeadAttention(nn.Module):\n    def __init__(self, d_model, d_k):\n"
                         "        super().__init__()\n"
                         "        self.W_Q = nn.Linear(d_model, d_k, bias=False)\n"
                         "        self.W_K = nn.Linear(d_model, d_k, bias=False)\n"
                         "        self.W_V = nn.Linear(d_model, d_k, bias=False)\n\n"
                         "    def forward(self, x_q, x_kv, mask=None):\n"
                         "        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)\n")


def solution_text(assignment: str) -> str:
    return (paths.SOLUTIONS_DIR / assignment / f"{assignment}.py").read_text(encoding="utf-8")


def stub_text(assignment: str) -> str:
    return (paths.ASSIGNMENTS_DIR / assignment / f"{assignment}.py").read_text(encoding="utf-8")


def write_class(root: Path, students: dict[str, dict[str, str | bytes]]) -> Path:
    """students: id -> {file name: content}. Returns the submissions folder."""
    for student, files in students.items():
        folder = root / student
        folder.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
    return root


def grade(submissions: Path, out: Path, workers: int = 2, **options) -> dict[str, StudentResult]:
    return {r.student_id: r for r in grade_class(submissions, out, workers=workers, **options)}


def scores_by_test(result: StudentResult) -> dict[str, float]:
    return {t.test_id.split("::", 1)[1]: t.score for t in result.tests}


def loaded_file(server, text: str, assignment: str):
    """A student's .py for `assignment`, loaded in a child of `server` as grading loads it (its
    `if __name__ == "__main__"` block, the public checks, does not run)."""
    from autograder.grading.student import StudentFile
    from autograder.grading.submissions import SourceFile

    text = text.replace('if __name__ == "__main__"', "if False")
    return StudentFile(server, SourceFile(assignment, f"{assignment}.py", (text,)))

"""The bundled demo class, derived from the solutions and handouts so it never drifts from them.

Each student is the reference solution with the realistic mistakes listed here (exact text
replacements), or the handout itself. `make assignments` writes it to demo/submissions/.
"""
from __future__ import annotations

import random

import nbformat
import yaml

from .. import paths
from ..quiz import Quiz, load_quizzes

SCORES, LAYER = "attention_scores", "single_head_attention"

# student -> assignment -> [(correct text, the student's version)]; an absent assignment was not handed in
MISTAKES = {
    "ada": {SCORES: [], LAYER: []},
    "linus": {
        SCORES: [("return Q @ K.transpose(-2, -1) / math.sqrt(d_k)", "return Q @ K.transpose(-2, -1) / d_k"),
                 ("    return F.softmax(scores, dim=-1)", "    return F.softmax(scores, dim=1)")],
        LAYER: [('''    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])  # score
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))  # mask
    weights = F.softmax(scores, dim=-1)                        # softmax over keys''',
                 '''    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    weights = F.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask  # mask after softmax''')],
    },
    "margaret": {SCORES: [("    return Q @ K.transpose(-2, -1)\n", "    return K @ Q.transpose(-2, -1)\n")]},
    "barbara lee": {
        SCORES: [("return -torch.special.xlogy(weights, weights).sum(dim=-1)",
                  "return -(weights * weights.log()).sum(dim=-1)")],
        LAYER: [("Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)",
                 "Q, K, V = self.W_Q(x_q), self.W_K(x_q), self.W_V(x_q)")],
    },
}
QUIZ_SKILL = {"ada": 1.0, "grace": 0.8, "linus": 0.6, "barbara lee": 0.4}  # share answered right
# A LaTeX answer in double quotes and an unquoted colon: invalid YAML, read one answer at a time.
BROKEN_QUIZ = ("margaret", "quiz_attention.yaml",
               'att-01: "softmax(QK^T/\\sqrt{d_k}) V"\natt-02: false\natt-07: it removes the bottleneck: '
               'the decoder sees all encoder states instead of one final vector\n')
NOTATION = ("grace", "√d_k")  # answers "square root of d_k" in the notation the normaliser accepts


def mutated(assignment: str, mistakes: list[tuple[str, str]]) -> str:
    text = (paths.SOLUTIONS_DIR / assignment / f"{assignment}.py").read_text(encoding="utf-8")
    for right, wrong in mistakes:
        if right not in text:
            raise ValueError(f"demo: the solution of {assignment} no longer contains {right!r}")
        text = text.replace(right, wrong, 1)
    return text


def notebook_with_magic(assignment: str) -> str:
    """The solution notebook as a student who also left a `%matplotlib inline` in it."""
    notebook = nbformat.read(paths.SOLUTIONS_DIR / assignment / f"{assignment}.ipynb", as_version=4)
    notebook.cells.insert(2, nbformat.v4.new_code_cell("%matplotlib inline", id="student-magic"))
    return nbformat.writes(notebook) + "\n"


def quiz_answers(quiz: Quiz, skill: float, rng: random.Random, sqrt_as: str | None = None) -> str:
    answers = {}
    for question in quiz.questions:
        sqrt_answer = sqrt_as is not None and "sqrt" in str(question.accepted).lower()
        if rng.random() < skill or sqrt_answer:
            answers[question.id] = question.accepted[0] if question.type == "short_answer" else question.answer
            if sqrt_answer:
                answers[question.id] = sqrt_as
        elif question.type == "true_false":
            answers[question.id] = not question.answer
        elif question.type == "multiple_choice":
            answers[question.id] = next(o.id for o in question.options if o.id != question.answer)
        elif question.type == "numeric":
            answers[question.id] = 1.0
        else:  # a misconception the quiz names (often one for a person to weigh), else a doubt (scored 0)
            listed = [m.answer for m in question.misconceptions if isinstance(m.answer, str)]
            answers[question.id] = listed[0] if listed else "I am not sure"
    return yaml.safe_dump(answers, allow_unicode=True, sort_keys=False)


def demo_files() -> dict[str, str]:
    """Path below demo/submissions -> content."""
    files = {}
    for student, assignments in MISTAKES.items():
        for assignment, mistakes in assignments.items():
            files[f"{student}/{assignment}.py"] = mutated(assignment, mistakes)
    for assignment in (SCORES, LAYER):
        files[f"grace/{assignment}.ipynb"] = notebook_with_magic(assignment)
        handout = paths.ASSIGNMENTS_DIR / assignment / f"{assignment}.ipynb"
        files[f"alan/{assignment}.ipynb"] = handout.read_text(encoding="utf-8")
    rng = random.Random(3)
    for student, skill in QUIZ_SKILL.items():
        for quiz in load_quizzes(paths.QUIZZES_DIR).values():
            sqrt_as = NOTATION[1] if student == NOTATION[0] else None
            files[f"{student}/quiz_{quiz.id}.yaml"] = quiz_answers(quiz, skill, rng, sqrt_as)
    student, name, text = BROKEN_QUIZ
    files[f"{student}/{name}"] = text
    return files

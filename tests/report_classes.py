"""Classes of results built in memory, for the report tests and the report screenshots.

`diagnosed_class()` is a small class that uses every state the report draws: a diagnosed mistake failing
three checks of one student, an ambiguous diagnosis, failures no mistake model explained, a missing file, an
unreadable file, a grader problem and an untouched quiz.
"""
from __future__ import annotations

from autograder.results import (FAILED, GRADER_ERROR, PASSED, Diagnosis, QuizItem, QuizResult,
                                        StudentResult)
from autograder.results import TestResult as CheckResult  # aliased so pytest does not collect it

MASK_AFTER = Diagnosis("mask-after-softmax", "the mask is applied after the softmax",
                       "your weights equal softmax(scores) with the forbidden keys zeroed afterwards, to 1e-6")
RENORMALISED = Diagnosis("mask-after-softmax-renormalised",
                         "the mask is applied after the softmax, and the rows are renormalised",
                         "your weights equal masked-then-renormalised softmax weights, to 1e-6")
DIVIDE_BY_DK = Diagnosis("scale-by-dk", "the scores are divided by d_k instead of sqrt(d_k)",
                         "your scores equal Q K^T / d_k to 1e-6 at d_k = 6 and d_k = 16")


def check(function: str, status: str = FAILED, points: float = 1.0, tags: tuple[str, ...] = (),
          assignment: str = "attention_scores", question: str = "dot_scores", output: str = "",
          diagnoses: tuple[Diagnosis, ...] = (), attempted: bool = True, visibility: str = "visible",
          name: str = "") -> CheckResult:
    return CheckResult(test_id=f"{assignment}::{function}", name=name or f"{function} works", assignment=assignment,
                       question=question, score=points if status == PASSED else 0.0, max_score=points,
                       status=status, output=output, tags=tags, diagnoses=diagnoses, attempted=attempted,
                       visibility=visibility)


def quiz(scores: list[float], maxima: list[float] | None = None, quiz_id: str = "q", problem: str | None = None):
    maxima = maxima or [1.0] * len(scores)
    items = tuple(QuizItem(f"{quiz_id}-{i + 1:02d}", s, m) for i, (s, m) in enumerate(zip(scores, maxima)))
    return QuizResult(quiz_id, sum(scores), sum(maxima), items, problem)


def student(student_id: str, tests=(), quizzes=(), **extra) -> StudentResult:
    return StudentResult(student_id, tuple(tests), tuple(quizzes), isolation=extra.pop("isolation", "bwrap"), **extra)


# (function, question, assignment, points, name): a small kit with the real kit's shape.
CHECKS = [
    ("test_dot_scores_values", "dot_scores", "attention_scores", 2, "dot_scores matches q_i . k_j"),
    ("test_scaled_dot_scores_values", "scaled_dot_scores", "attention_scores", 2,
     "scaled_dot_scores divides q_i . k_j by sqrt(d_k)"),
    ("test_scaled_dot_scores_gradients", "scaled_dot_scores", "attention_scores", 1,
     "Gradients flow from the scaled scores back to Q and K"),
    ("test_attention_weights_mask", "attention_weights", "attention_scores", 1,
     "forbidden keys get weight <= 1e-6 and rows still sum to 1"),
    ("test_attention_values", "attention", "single_head_attention", 2,
     "attention's output and weights match softmax(Q K^T / sqrt(d_k)) V"),
    ("test_attention_masks", "attention", "single_head_attention", 2, "Causal and padding masks"),
    ("test_layer_causal_mask", "SingleHeadAttention", "single_head_attention", 1,
     "A causal mask hides future keys in self-attention"),
]
TAGS = {"test_attention_masks": ("mask after softmax", "inverted mask"), "test_layer_causal_mask": ("graph cut",)}


def kit(failing: dict[str, dict] | None = None, assignments_missing: tuple[str, ...] = ()) -> list[CheckResult]:
    """Every check of the small kit: passed, unless `failing` gives its failure (keyword arguments of check)."""
    failing = failing or {}
    tests = []
    for function, question, assignment, points, name in CHECKS:
        if assignment in assignments_missing:
            tests.append(check(function, FAILED, points, TAGS.get(function, ()), assignment, question,
                               output=f"no {assignment}.py or {assignment}.ipynb in the submission",
                               attempted=False, name=name))
        elif function in failing:
            tests.append(check(function, failing[function].pop("status", FAILED), points, TAGS.get(function, ()),
                               assignment, question, name=name, **failing[function]))
        else:
            tests.append(check(function, PASSED, points, TAGS.get(function, ()), assignment, question, name=name))
    return tests


def answers(pattern: str) -> QuizResult:
    return quiz([float(c) for c in pattern], quiz_id="attention")


def diagnosed_class() -> list[StudentResult]:
    mask_after = {"output": "rows of the weights sum to 0.42 under a causal mask", "diagnoses": (MASK_AFTER,)}
    return [
        student("ada", kit(), [answers("111111")]),
        student("ben", kit({"test_attention_weights_mask": dict(mask_after),
                            "test_attention_masks": dict(mask_after, output="row 0 sums to 0.31 under a padding mask"),
                            "test_layer_causal_mask": dict(mask_after)}), [answers("110111")]),
        student("cy", kit({"test_scaled_dot_scores_values": {"output": "scores differ by up to 1.66",
                                                             "diagnoses": (DIVIDE_BY_DK,)},
                           "test_attention_masks": dict(mask_after)}), [answers("101101")]),
        student("dee", kit({"test_dot_scores_values": {"output": "entries [0, 2, 1] and [0, 3, 4] differ by 0.7"},
                            "test_scaled_dot_scores_gradients": {"output": "the gradient w.r.t. Q differs by 1.17"}}),
                [answers("100100")]),
        student("eve", kit({"test_attention_masks": {"output": "rows sum to 0.6",
                                                     "diagnoses": (MASK_AFTER, RENORMALISED)}},
                           assignments_missing=()), [answers("011011")]),
        student("fay", kit(assignments_missing=("single_head_attention",)),
                [quiz([0] * 6, quiz_id="attention", problem="no answer file quiz_attention.yaml handed in")],
                problems=("no single_head_attention.py or single_head_attention.ipynb in the submission",)),
        student("gus", [t if t.assignment != "attention_scores" else check(
                    t.test_id.split("::")[1], FAILED, t.max_score, t.tags, t.assignment, t.question,
                    output="attention_scores.ipynb is not a readable notebook (JSONDecodeError)", attempted=False,
                    name=t.name) for t in kit()], [answers("111011")],
                problems=("attention_scores.ipynb is not a readable notebook (JSONDecodeError)",),
                unreadable=("attention_scores",)),
        student("hal", kit({"test_attention_values": {"status": GRADER_ERROR,
                                                      "output": "A grader problem, not in your code."}}),
                [answers("111110")]),
    ]


def large_quiz_class(students: int = 40, items: int = 14, seed: int = 7) -> list[StudentResult]:
    """A class big enough for item statistics: answers drawn from a one-parameter logistic model (abler
    students get more right), except the last item, answered by a coin toss."""
    import math
    import random

    rng = random.Random(seed)
    results = []
    for index in range(students):
        ability = rng.gauss(0.0, 1.2)
        scores = [float(rng.random() < 1 / (1 + math.exp(-(ability - (k - items / 2) / 3)))) for k in range(items - 1)]
        scores.append(float(rng.random() < 0.5))
        results.append(student(f"s{index + 1:02d}", kit(), [quiz(scores, quiz_id="attention")]))
    return results

"""Class-level numbers shared by the HTML report and the terminal summary (pure functions, no I/O).

Item analysis uses the *corrected point-biserial*: the Pearson correlation between a student's score on
one quiz item and their score on the rest of that quiz (quiz total minus the item). For 0/1 items this is
the point-biserial; for partial-credit items it is the same formula on fractional scores. Leaving the item
out of the total stops it correlating with itself, which inflates the index in short quizzes and small
classes. Students whose answers file was missing or unreadable (`QuizResult.problem`) are left out of that
quiz's analysis: they did not answer, so their zeros say nothing about the items. Every student with a
readable file is a taker; an answer waiting for review has no score yet, so it is counted (`pending`) and
left out of difficulty and discrimination, which are computed over the `scored` takers.

Item statistics are *shown* only for a quiz with at least ITEM_STATS_MIN_TAKERS = 30 takers. The reason is
the sampling error of a correlation: about 1/sqrt(n - 1) for an item that separates no one, so 0.58 at
n = 4, 0.33 at n = 10 and 0.19 at n = 30. Below 30 that error is larger than the gap (0.2) between "separates
no one" and the flag line, so a flag would mostly report chance. By Fisher's z, a good item (true
discrimination 0.4) falls below the 0.2 line by chance in 41% of classes of 4, 28% of 10, 18% of 20 and 13%
of 30 (5% needs about 60). Difficulty is a proportion and steadier (standard error at most 0.5/sqrt(n): 0.25
at n = 4, 0.09 at n = 30), but on the same items it is shown under the same rule, so the two are read
together. Smaller classes get counts only ("k of n had full marks"): facts, not estimates.

Misconceptions come from diagnoses only (`TestResult.diagnoses`), never from tags: a tag says what a test
targets, not what a student did. Several diagnoses on one test are alternatives (each alone reproduces the
result), so a student counts as having *made* a mistake only when some failed test names it alone; a
mistake named only alongside others, on tests no proven mistake explains, is listed as *possible*.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ..grading.submissions import not_handed_in
from ..results import FAILED, PASSED, StudentResult, TestResult
from .explain import plan_explanations
from .names import is_test_student
from .provisional import pending
from .repairs import repaired_questions

LOW_DISCRIMINATION = 0.2
MIN_TAKERS = 3  # below this a correlation is not even defined, so none is computed
ITEM_STATS_MIN_TAKERS = 30  # below this, difficulty and discrimination are computed but not shown (see above)


@dataclass(frozen=True)
class TestStats:
    test_id: str
    name: str
    assignment: str
    question: str
    visibility: str
    passed: int
    failed: int
    grader_errors: int

    @property
    def graded(self) -> int:
        return self.passed + self.failed  # grader errors say nothing about students

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.graded if self.graded else None


@dataclass(frozen=True)
class ItemStats:
    quiz_id: str
    question_id: str
    max_score: float
    takers: int
    difficulty: float | None        # mean score / max: 1 = everyone right (higher is easier)
    discrimination: float | None    # corrected point-biserial; None when undefined
    full_marks: int = 0             # takers with full marks on the item: a count, shown at any class size
    pending: int = 0                # takers whose answer waits for review: counted as takers, not scored yet

    @property
    def scored(self) -> int:
        """Takers whose answer has a score: difficulty and discrimination are computed over these."""
        return self.takers - self.pending

    @property
    def shown(self) -> bool:
        """Whether the class is large enough for difficulty and discrimination to mean something."""
        return self.scored >= ITEM_STATS_MIN_TAKERS

    @property
    def flagged(self) -> bool:
        return self.shown and self.discrimination is not None and self.discrimination < LOW_DISCRIMINATION


def percent(result: StudentResult) -> float:
    return 100.0 * result.score / result.max_score if result.max_score else 0.0


# The one class mean the kit shows (terminal, report overview, heatmap footer): over every graded student, a
# part not handed in, blank or unreadable counting 0; quiz points waiting for review are not counted yet, and
# shown beside it as every score shows them ("45.3 + 0.8 pending": `mean_pending`, over every student too).
CLASS_MEAN = "every student; a part not handed in counts 0"


def of_the_class(results: list[StudentResult]) -> list[StudentResult]:
    """The students the class statistics are about: Canvas's Test Student (the teacher's student view) is
    graded and listed like anyone, but is no one's work, so no mean, count or item statistic includes it."""
    return [r for r in results if not is_test_student(r.student_id)]


def score_overview(results: list[StudentResult]) -> dict[str, float | int | None]:
    results = of_the_class(results)
    scores = [r.score for r in results]
    return {
        "students": len(results),
        "mean": statistics.fmean(scores) if scores else None,
        "mean_pending": statistics.fmean(pending(r) for r in results) if results else None,
        "median": statistics.median(scores) if scores else None,
        "min": min(scores) if scores else None,
        "max": max(scores) if scores else None,
        "max_score": max((r.max_score for r in results), default=0.0),
        "full_marks": sum(1 for r in results if r.max_score and r.score >= r.max_score),
        "passed_every_test": sum(1 for r in results if r.tests and all(t.status == PASSED for t in r.tests)),
        # a file handed in that could not be read or was refused; a file not handed in is counted apart
        "ungradable": sum(1 for r in results if any(not not_handed_in(p) for p in r.problems)),
        "not_handed_in": sum(1 for r in results if any(not_handed_in(p) for p in r.problems)),
        "grader_problems": sum(len(r.grader_errors) for r in results),
    }


def test_stats(results: list[StudentResult]) -> list[TestStats]:
    """One entry per test id, in the order tests first appear (which is the graders' file order)."""
    results = of_the_class(results)
    first: dict[str, TestResult] = {}
    counts: dict[str, list[int]] = {}
    for result in results:
        for test in result.tests:
            first.setdefault(test.test_id, test)
            tally = counts.setdefault(test.test_id, [0, 0, 0])
            if test.max_score == 0 and test.status == FAILED and not test.attempted:
                continue  # a zero-point flag on a missing file had nothing to look at: neither passed nor failed
            tally[0 if test.status == PASSED else 1 if test.status == FAILED else 2] += 1
    return [TestStats(t.test_id, t.name, t.assignment, t.question, t.visibility, *counts[tid])
            for tid, t in first.items()]


def hardest_tests(stats: list[TestStats], count: int = 3) -> list[TestStats]:
    rated = [s for s in stats if s.pass_rate is not None]
    return sorted(rated, key=lambda s: s.pass_rate)[:count]  # stable: ties keep grader order


@dataclass(frozen=True)
class MistakeStats:
    mistake: str                      # the stable id
    title: str                        # the sentence that names it
    made: tuple[str, ...]             # students who provably made it
    possible: tuple[str, ...]         # students whose results it explains only together with other mistakes
    tests: tuple[str, ...]            # test ids that named it, in grader order
    places: tuple[tuple[str, str], ...] = ()   # (assignment, exercise) of each check that named it, in grader order

    @property
    def where(self) -> str:
        return ", ".join(f"{assignment} / {exercise}" for assignment, exercise in self.places)


def mistake_key(diagnosis) -> tuple[str, str]:
    """A diagnosed mistake as the class views count it: its id and its sentence, never the id alone. A catalogue
    mistake reads the same in every exercise (one misconception, counted once); two masters' declared mistakes may
    share an id with different sentences (each master's ids are its own): those are two mistakes."""
    return diagnosis.mistake, diagnosis.title


def diagnosed_mistakes(results: list[StudentResult]) -> list[MistakeStats]:
    """Per diagnosed mistake, the students who made it, most students first. Only FAILED, attempted tests count;
    a test with several diagnoses proves none of them (see the module docstring)."""
    tests: dict[tuple, list[str]] = {}
    places: dict[tuple, list[tuple[str, str]]] = {}
    made: dict[tuple, set[str]] = {}
    possible: dict[tuple, set[str]] = {}
    for result in results:
        failures = [t for t in result.tests if t.status == FAILED and t.attempted and t.diagnoses]
        proven = {mistake_key(t.diagnoses[0]) for t in failures if len(t.diagnoses) == 1}
        for test in failures:
            names = {mistake_key(d) for d in test.diagnoses}
            for diagnosis in test.diagnoses:
                key = mistake_key(diagnosis)
                seen = tests.setdefault(key, [])
                if test.test_id not in seen:
                    seen.append(test.test_id)
                where = places.setdefault(key, [])
                if (test.assignment, test.question) not in where:
                    where.append((test.assignment, test.question))
                if key in proven:
                    made.setdefault(key, set()).add(result.student_id)
                elif not proven.intersection(names):
                    possible.setdefault(key, set()).add(result.student_id)
    stats = [MistakeStats(k[0], k[1], tuple(sorted(made.get(k, ()))), tuple(sorted(possible.get(k, ()))),
                          tuple(tests[k]), tuple(places[k])) for k in tests]
    return sorted(stats, key=lambda s: (-len(s.made), -len(s.possible), s.title))


@dataclass(frozen=True)
class Undiagnosed:
    """A test that some students failed with no diagnosis: (student, symptom) per student."""
    test: TestResult                  # the first such result, for the test's name and question
    students: tuple[tuple[str, str], ...]


def undiagnosed_failures(results: list[StudentResult]) -> list[Undiagnosed]:
    """Attempted failures that no mistake model explained and no repair of their question accounts for, grouped
    by test in grader order: where to look for mistakes nobody has modelled yet. Untouched stubs and missing files are not failures of this kind."""
    found: dict[str, list] = {}
    for result in results:
        plan = plan_explanations(result)
        repaired = repaired_questions(result)  # an edit of the student's code explains these (reporting/repairs.py)
        for test in result.tests:
            if test.status == FAILED and test.attempted and not test.diagnoses and not plan.nearby(test) \
                    and (test.assignment, test.question) not in repaired:
                found.setdefault(test.test_id, [test, []])[1].append((result.student_id, test.output))
    order = {s.test_id: i for i, s in enumerate(test_stats(results))}
    return [Undiagnosed(first, tuple(students))
            for first, students in sorted(found.values(), key=lambda pair: order[pair[0].test_id])]


def pearson(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None  # everyone scored the same: the item (or the rest) cannot separate anyone
    return sxy / math.sqrt(sxx * syy)


def item_analysis(results: list[StudentResult]) -> list[ItemStats]:
    results = of_the_class(results)
    order: dict[str, list[str]] = {}            # quiz id -> question ids in quiz order
    maxima: dict[tuple[str, str], float] = {}
    answers: dict[str, list[dict[str, float | None]]] = {}  # quiz id -> one {question: score or None} per taker
    for result in results:
        for quiz in result.quizzes:
            questions = order.setdefault(quiz.quiz_id, [])
            for item in quiz.items:
                if item.question_id not in questions:
                    questions.append(item.question_id)
                maxima[quiz.quiz_id, item.question_id] = max(maxima.get((quiz.quiz_id, item.question_id), 0.0),
                                                             item.max_score)
            if quiz.problem is None:  # an answer waiting for review has no score yet (None): a taker, not a 0
                answers.setdefault(quiz.quiz_id, []).append({i.question_id: None if i.pending else i.score
                                                             for i in quiz.items})
    items: list[ItemStats] = []
    for quiz_id, questions in order.items():
        for question in questions:
            top = maxima[quiz_id, question]
            takers = [scores for scores in answers.get(quiz_id, []) if question in scores]
            scored = [scores for scores in takers if scores[question] is not None]
            own = [scores[question] for scores in scored]
            difficulty = statistics.fmean(own) / top if scored and top else None
            rest = [sum(v for v in scores.values() if v is not None) - score for scores, score in zip(scored, own)]
            discrimination = pearson(own, rest) if len(scored) >= MIN_TAKERS else None
            full = sum(1 for score in own if top and score >= top)
            items.append(ItemStats(quiz_id, question, top, len(takers), difficulty, discrimination, full,
                                   len(takers) - len(scored)))
    return items


def grader_problems(results: list[StudentResult]) -> list[tuple[str, TestResult]]:
    return [(r.student_id, t) for r in results for t in r.grader_errors]


def weak_isolation(results: list[StudentResult]) -> dict[str, list[str]]:
    """isolation mode -> students graded with it, for every mode other than bubblewrap."""
    modes: dict[str, list[str]] = {}
    for result in results:
        if result.isolation != "bwrap":
            modes.setdefault(result.isolation or "not recorded", []).append(result.student_id)
    return modes

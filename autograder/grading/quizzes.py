"""Grade the class's quiz answer files (quiz_<quiz id>.yaml) beside their code, in the parent.

Answer files are YAML parsed with safe loading: data, never code. Code answers are evaluated in the
sandbox, once per distinct answer for the whole class (one fork server per run, started only when some
answer is new; verdicts are cached in OUT/.state). Answers no rule can judge wait for the instructor:
their points are pending, they are queued for `attnkit review OUT`, and the decisions in OUT/review.yaml
are applied to every answer of their group; the answers the kit scored by itself are recorded for keeping
decisions (kit_scored.py). The quiz package's results are mapped into the kit's result
model so every renderer shows quizzes next to the exercises.
"""
from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from ..quiz import GradingContext, Quiz, load_quizzes
from ..quiz.answers import read_answer_sheet
from ..quiz.code_answers import CodeAnswer, CodeEvaluator, prepare
from ..quiz.grade import _is_blank, _zero_result, answer_file_name, answer_path, grade_quiz
from ..quiz.kit_scored import KIT_SCORED, kit_scored, write_kit_scored
from ..quiz.model import QuizFormatError
from ..quiz.review import NOTED, QUEUE, REVIEW_FILE, load_decisions, write_noted, write_queue
from ..results import QuizItem, QuizResult

CODE_CACHE = Path(".state") / "quiz" / "code-verdicts.json"  # not .state/*.json: those are student results


def load_class_quizzes(folder: Path = paths.QUIZZES_DIR) -> list[Quiz]:
    """The quizzes a run grades with. Formula misconceptions are not re-compared here (sympy costs every
    run half a second): `attnkit assignments` and the kit's tests check the shipped quizzes in full."""
    return list(load_quizzes(folder, formulas=False).values()) if folder.is_dir() else []



def grade_class_quizzes(folders: dict[str, Path], out_dir: Path, isolation: str = "auto",
                        quizzes: list[Quiz] | None = None,
                        warn=lambda text: None, allow_weak: bool = False,
                        server=None,
                        found: dict[str, dict[str, str]] | None = None) -> dict[str, tuple[QuizResult, ...]]:
    """Every student's quizzes: student id -> results, in quiz order. Writes the review queue. `server`: a
    fork server already running (the code grading's), used instead of starting one; the caller closes it.
    `found`: student id -> {answer file name: path} for files found elsewhere than the student's folder
    (beside code one folder down, grading/quiz_files.py); a name not in it is looked for in the folder."""
    quizzes = load_class_quizzes() if quizzes is None else quizzes
    found = found or {}
    sheets = {sid: {quiz.id: _walled(sid, quiz, warn, _read, quiz, folder, found.get(sid)) for quiz in quizzes}
              for sid, folder in folders.items()}
    decisions = load_decisions(out_dir / REVIEW_FILE, {q.id: q for q in quizzes})
    for text in decisions.warnings:
        warn(text)
    fresh_verdict_cache(out_dir / CODE_CACHE)
    evaluator = CodeEvaluator(isolation, out_dir / CODE_CACHE, allow_weak)
    evaluator.server = server
    try:
        evaluator.evaluate(_code_answers(quizzes, sheets))
        stamp_verdict_cache(out_dir / CODE_CACHE)
        context = GradingContext(evaluator, decisions)
        zero: dict[tuple, object] = {}  # (quiz, why there is no sheet) -> the one zero result: a class of empty folders
        graded = {sid: tuple(_walled(sid, quiz, warn, _grade, quiz, sheets[sid][quiz.id], folder, context, zero)
                             for quiz in quizzes)
                  for sid, folder in folders.items()}
    finally:
        if server is None:
            evaluator.close()
    queue = _queue(graded)
    if queue or (out_dir / QUEUE).exists():  # nothing to review and nothing to clear: OUT stays as it was
        write_queue(out_dir, queue)
    noted = _noted(graded)
    if noted or (out_dir / NOTED).exists():
        write_noted(out_dir, noted)
    scored = kit_scored(graded)  # what keeping a review decision must not change (kit_scored.py)
    if scored or queue or (out_dir / KIT_SCORED).exists() or (out_dir / REVIEW_FILE).exists():
        write_kit_scored(out_dir, scored)  # no quiz answer and no review: OUT stays as it was
    converted: dict[int, QuizResult] = {}  # a shared zero result naming no folder is converted once

    def convert_once(result, folder: Path, sid: str) -> QuizResult:
        if sid in found:  # its messages may name files beside the code: shown by their names only
            return convert(result, folder, tuple(Path(p).parent for p in found[sid].values()))
        if id(result) not in zero_ids or f"{folder}{os.sep}" in (result.problem or ""):
            return convert(result, folder)
        if id(result) not in converted:
            converted[id(result)] = convert(result, folder)
        return converted[id(result)]

    zero_ids = {id(result) for result in zero.values()}  # alive in `zero` (and `graded`): ids stay unique
    return {sid: tuple(convert_once(result, folders[sid], sid) for result in results)
            for sid, results in graded.items()}


def _verdict_stamp(cache: Path) -> tuple[Path, str, bool]:
    from .version import code_verdict_version

    stamp, version = cache.with_name(cache.name + ".version"), code_verdict_version()
    try:
        return stamp, version, stamp.read_text(encoding="utf-8").strip() == version
    except OSError:
        return stamp, version, False


def fresh_verdict_cache(cache: Path) -> None:
    """Drop kept code verdicts made by another version of the evaluator, the sandbox, the kit or torch."""
    if cache.exists() and not _verdict_stamp(cache)[2]:
        cache.unlink()


def stamp_verdict_cache(cache: Path) -> None:
    """Record which version made the verdicts kept in `cache`."""
    from ..results import write_atomic

    stamp, version, current = _verdict_stamp(cache)
    if cache.exists() and not current:
        write_atomic(stamp, version)


def _walled(student_id: str, quiz: Quiz, warn, step, *args):
    """One student's quiz file read or graded: whatever it makes the kit do, it is that student's quiz, never the
    class's. A failure no bound foresaw scores that quiz 0 with why (a file's text instead of a sheet, which
    grades as 0), and the instructor is told."""
    try:
        return step(*args)
    except Exception as exc:  # noqa: BLE001 - the per-student wall
        what = f"{type(exc).__name__}: {str(exc)[:200]}"
        warn(f"{student_id}: quiz {quiz.id}: the kit failed on this student's answer file ({what}); the quiz "
             "scored 0 for now. Please report it with the file.")
        why = (f"{answer_file_name(quiz)} could not be graded: the grading kit failed on it ({type(exc).__name__}), "
               "quiz scored 0 for now; your instructor has been told")
        return _zero_result(quiz, why) if step is _grade else why


def _read(quiz: Quiz, folder: Path, found: dict[str, str] | None = None):
    """The student's answer sheet for `quiz`, or why there is none: the file found for it, else the one in
    `folder` (answer_path refuses links and oversized files either way)."""
    where = (found or {}).get(answer_file_name(quiz))
    path = answer_path(quiz, Path(where).parent if where else folder)
    if isinstance(path, str):
        return path
    try:
        return read_answer_sheet(path)
    except QuizFormatError as exc:
        return f"answer file could not be used, quiz scored 0:\n{exc}"
    except OSError as exc:
        return f"{path.name}: answer file could not be read ({exc}), quiz scored 0"


def _code_answers(quizzes: list[Quiz], sheets: dict) -> list[tuple]:
    """Each distinct readable code answer of the class, once."""
    work: dict[str, tuple] = {}
    for quiz in quizzes:
        for question in (q for q in quiz.questions if q.code is not None):
            for by_quiz in sheets.values():
                sheet = by_quiz[quiz.id]
                given = None if isinstance(sheet, str) else sheet.answers.get(question.id)
                if _is_blank(given) or isinstance(given, bool) or not isinstance(given, (str, int, float)):
                    continue
                try:
                    prepared = prepare(question, given)
                except Exception:  # noqa: BLE001 - the answer's own grading meets it again, walled (_walled)
                    continue
                if isinstance(prepared, CodeAnswer):
                    work.setdefault(prepared.key, (question, prepared))
    return list(work.values())


def _grade(quiz: Quiz, sheet, folder: Path, context: GradingContext, zero: dict | None = None):
    if isinstance(sheet, str):
        if zero is None:
            return _zero_result(quiz, sheet)
        key = (quiz.id, sheet)
        if key not in zero:
            zero[key] = _zero_result(quiz, sheet)
        return zero[key]
    return grade_quiz(quiz, sheet.answers, context, sheet)


def _queue(graded: dict) -> dict:
    pending: dict = {}
    for sid, results in sorted(graded.items()):
        for result in results:
            for item in result.items:
                if item.pending:
                    entry = pending.setdefault(result.quiz_id, {}).setdefault(item.question_id, {}).setdefault(
                        item.review_text, {"answer": str(item.given), "students": [], "meaning": item.meaning,
                                           **_suggestion(item)})
                    entry["students"].append(sid)
    return pending


def _noted(graded: dict) -> dict:
    """Answers scored by their choice alone beside a reason that may contradict the key (`reasons: choice`)."""
    noted: dict = {}
    for sid, results in sorted(graded.items()):
        for result in results:
            for item in (i for i in result.items if i.noted):
                entry = noted.setdefault(result.quiz_id, {}).setdefault(item.question_id, {}).setdefault(
                    " ".join(str(item.given).casefold().split()), {"answer": str(item.given), "students": [],
                                                                   "why": item.noted})
                entry["students"].append(sid)
    return noted


def _suggestion(item) -> dict:
    """What grading suggests for a pending answer (a score and why), shown on the review page; never awarded."""
    if item.suggested_score is None:
        return {}
    return {"suggested": float(item.suggested_score), "why": item.suggestion or "",
            **({"certain": True} if getattr(item, "suggestion_certain", False) else {})}


def convert(graded, folder: Path, also: tuple[Path, ...] = ()) -> QuizResult:
    def shown(text: str) -> str:  # students see their file's name, not the grading machine's paths
        for place in (folder, *also):
            text = text.replace(f"{place}{os.sep}", "")
        return " ".join(text.split("\n"))

    items = tuple(QuizItem(i.question_id, float(i.score), float(i.max_score), feedback_for(i), i.pending,
                           i.suggested_score, i.suggestion, i.meaning, i.suggestion_certain)
                  for i in graded.items)
    return QuizResult(graded.quiz_id, float(graded.score), float(graded.max_score), items,
                      shown(graded.problem) if graded.problem else None, float(graded.pending))



def feedback_for(item) -> str:
    parts = [item.feedback] if item.feedback else []
    if item.score < item.max_score and not item.pending:
        parts.append(expected(str(item.correct_answer), item.explanation or ""))
    return " ".join(p.strip() for p in parts if p and p.strip())


def expected(answer: str, explanation: str) -> str:
    """"Expected: <key>. <explanation>", the key said once: an explanation that opens with it ("False. The
    softmax ...") keeps only what follows."""
    key, explanation = answer.strip().rstrip("."), explanation.strip()
    if key and explanation[: len(key)].casefold() == key.casefold() and not explanation[len(key):][:1].isalnum():
        explanation = explanation[len(key):].lstrip(" .,:;!-–—")
    return f"Expected: {key}. {explanation}".strip()

"""Read quiz and answer files: YAML -> schema check -> semantic checks -> model objects."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Union

import yaml

from .choices import verdict_words
from .meaning import lexicon, read_meaning
from .nonanswers import is_non_answer
from .contradictions import code_contradictions, contradiction_problems, verdict_word_problems
from .misconceptions import misconception_problems, wrong_answer_policy
from .model import (DEFAULT_LANGUAGES, AnswerValue, CodeSpec, MathsSpec, Misconception, Option, Question, Quiz,
                    QuizFormatError, RubricItem)
from . import checked

PathLike = Union[str, Path]


class _NoDuplicateKeys:
    """Refuses duplicate mapping keys: plain PyYAML keeps the last of two `answer:` keys silently, which would
    hide an author's typo or a student answering the same question twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:  # unhashable key; let PyYAML report it
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _StrictLoader(_NoDuplicateKeys, yaml.SafeLoader):
    """SafeLoader without duplicate keys, in Python: students' answer files (answers.py) refine how it composes."""


# The quiz files, read at every start-up: libyaml's parser where PyYAML was built with it (ten times faster)
_QuizLoader = type("_QuizLoader", (_NoDuplicateKeys, getattr(yaml, "CSafeLoader", yaml.SafeLoader)), {})


def read_text(path: PathLike) -> str:
    """A quiz or answer file's text; a file that cannot be read is a QuizFormatError that says why."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuizFormatError(path, [("", "file not found")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizFormatError(path, [("", f"cannot read file: {exc}")]) from None


def read_yaml(path: PathLike, text: str | None = None) -> Any:
    """Parse one YAML file (or its `text`, already read), turning every I/O or syntax failure into QuizFormatError."""
    text = read_text(path) if text is None else text
    try:
        return yaml.load(text, Loader=_QuizLoader)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f"line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise QuizFormatError(path, [(where, f"invalid YAML: {problem}")]) from None


def _question_label(raw: dict, index: int) -> str:
    qid = raw.get("id")
    return f"question {qid}" if isinstance(qid, str) and qid else f"question #{index + 1}"


def _wording_problems(options: list[dict]) -> list[str]:
    """An option's other wordings (`also`) must name it alone: not another option's text or wording, and
    not a letter (which names an option by its id)."""
    from .choices import option_wording

    owner: dict[str, str] = {}
    problems = []
    for option in options:
        for text in [option["text"], *option.get("also", ())]:
            key = option_wording(text)
            if text is not option["text"] and re.fullmatch(r"\W*[A-Za-z]\W*", text.strip()):
                problems.append(f"option {option['id']}: {text!r} in 'also' reads as an option letter")
            elif owner.setdefault(key, option["id"]) != option["id"]:
                problems.append(f"option {option['id']}: {text!r} is also a wording of option {owner[key]}")
    return problems


def _semantic_problems(data: dict, formulas: bool = True) -> list[tuple[str, str]]:
    """Checks the schema cannot express. Assumes the data already passed the schema."""
    problems: list[tuple[str, str]] = []
    first_index_of: dict[str, int] = {}
    objectives = data.get("objectives") or []
    assessed: set[str] = set()
    languages = tuple(data.get("languages") or DEFAULT_LANGUAGES)
    problems += [("", text) for text in verdict_word_problems(data, languages)]
    for index, raw in enumerate(data["questions"]):
        where = _question_label(raw, index)
        qid = raw["id"]
        if qid in first_index_of:
            problems.append((where, f"duplicate id (question #{first_index_of[qid] + 1} "
                                    f"and #{index + 1} both use '{qid}')"))
        first_index_of.setdefault(qid, index)

        if raw["type"] == "multiple_choice":
            option_ids = [o["id"] for o in raw["options"]]
            if len(set(option_ids)) != len(option_ids):
                problems.append((where, f"option ids must be unique, got {', '.join(option_ids)}"))
            texts = [o["text"].strip().casefold() for o in raw["options"]]
            if len(set(texts)) != len(texts):
                problems.append((where, "two options have the same text"))
            problems += [(where, why) for why in _wording_problems(raw["options"])]
            if raw["answer"] not in option_ids:
                problems.append((where, f"'answer' must be one of the option ids {', '.join(option_ids)}"
                                        f" (got {raw['answer']!r})"))
        if raw["type"] == "numeric" and not math.isfinite(raw["answer"]):
            problems.append((where, f"'answer' must be a finite number, got {raw['answer']}"))
        for i, pattern in enumerate(raw.get("regex", [])):
            try:
                re.compile(pattern)
            except re.error as exc:
                problems.append((where, f"'regex[{i}]' {pattern!r} does not compile: {exc}"))
        rubric_total = sum(item["points"] for item in raw.get("rubric", []))
        if rubric_total > raw["points"] + 1e-9:
            problems.append((where, f"rubric points add up to {rubric_total:g}, more than the "
                                    f"question's {raw['points']:g} points"))
        if raw.get("maths") and raw.get("code"):
            problems.append((where, "a short answer is graded as maths or as code, not both"))
        code = raw.get("code") or {}
        for name in code.get("masked", []):
            if name not in code.get("inputs", {}):
                problems.append((where, f"code: masked input {name!r} is not one of its inputs"))
        for answer in [*raw.get("accepted", []), *([raw["answer"]] if isinstance(raw.get("answer"), str) else [])]:
            if is_non_answer(answer):
                problems.append((where, f"the accepted answer {answer!r} reads as \"I do not know\", which always "
                                        "scores 0 (quiz/nonanswers.py)"))
        if "auto_rubric" in raw:
            problems.append((where, "'auto_rubric' is no longer supported: a keyword rubric only suggests a score "
                                    "to the reviewer; list 'terms' so that answers stating an accepted answer's "
                                    "key terms in the same order are graded without review"))
        problems += [(where, text) for text in _terms_problems(raw, tuple(data.get("languages") or DEFAULT_LANGUAGES))]
        problems += [(where, text) for text in misconception_problems(raw, formulas)]
        problems += [(where, text) for text in contradiction_problems(raw, languages, formulas)]
        if qid in data.get("retired", []):
            problems.append((where, f"'{qid}' is a retired id: give the question a new one"))
        if objectives and raw["objective"] not in objectives:
            problems.append((where, f"'objective' {raw['objective']!r} is not one of the quiz's objectives"))
        assessed.add(raw["objective"])
    for objective in objectives:
        if objective not in assessed:
            problems.append(("", f"objective {objective!r} is not assessed by any question"))
    return problems


def _terms_problems(raw: dict, languages: tuple[str, ...]) -> list[str]:
    """Terms pin meanings: each phrase names one term, and every accepted answer reads as terms and fillers."""
    terms = raw.get("terms")
    if not terms:
        return ["'scored' answers need 'terms' (they are matched by their key terms)"] if raw.get("scored") else []
    if raw.get("maths") or raw.get("code"):
        return ["'terms' are for free-text answers, not for maths or code answers"]
    problems, owner = [], {}
    for name, phrases in terms.items():
        for text in phrases:
            key = read_meaning(text, lexicon((), languages)).canonical
            if not key:
                problems.append(f"term {name!r}: phrase {text!r} has no word that is not a filler")
            elif owner.setdefault(key, name) != name:
                problems.append(f"phrase {text!r} is listed under both {owner[key]!r} and {name!r}")
    lex = lexicon(_terms(terms), languages)
    said: dict[tuple[str, ...], tuple[float, str]] = {}
    answers = [(f"accepted[{i}]", a, raw["points"]) for i, a in enumerate(raw["accepted"])]
    answers += [(f"scored[{i}]", s["answer"], s["points"]) for i, s in enumerate(raw.get("scored", []))]
    for where, answer, points in answers:
        reading = read_meaning(answer, lex)
        if reading.unknown:
            problems.append(f"'{where}' {answer!r} uses words no term lists: "
                            f"{', '.join(dict.fromkeys(reading.unknown))}")
        elif said.setdefault(reading.terms, (points, where))[0] != points:
            problems.append(f"'{where}' {answer!r} states the same terms as '{said[reading.terms][1]}' "
                            f"but scores {points:g}, not {said[reading.terms][0]:g}")
        if where.startswith("scored") and points >= raw["points"]:
            problems.append(f"'{where}' scores {points:g}: an answer worth full marks belongs in 'accepted'")
    return problems


def _terms(raw: dict | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((name, tuple(phrases)) for name, phrases in (raw or {}).items())


def _build_question(raw: dict, languages: tuple[str, ...] = DEFAULT_LANGUAGES,
                    verdicts: dict[str, bool] | None = None, wrong_answers: str | None = None,
                    reasons: str | None = None) -> Question:
    answer = raw.get("answer")
    if raw["type"] == "numeric":
        answer = float(answer)
    return Question(
        id=raw["id"],
        type=raw["type"],
        prompt=raw["prompt"].strip(),
        points=float(raw["points"]),
        explanation=raw["explanation"].strip(),
        objective=raw["objective"],
        misconception=raw["misconception"],
        source=raw["source"],
        answer=answer,
        options=tuple(Option(id=o["id"], text=o["text"].strip(), also=tuple(a.strip() for a in o.get("also", ())))
                      for o in raw.get("options", [])),
        accepted=tuple(raw.get("accepted", [])),
        regex=tuple(raw.get("regex", [])),
        rubric=tuple(
            RubricItem(keywords=tuple(item["keywords"]), points=float(item["points"]))
            for item in raw.get("rubric", [])
        ),
        tolerance=float(raw.get("tolerance", 0.0)),
        maths=_maths_spec(raw.get("maths")),
        code=_code_spec(raw.get("code")),
        constants=tuple((k, float(v)) for k, v in (raw.get("constants") or {}).items()),
        review_if=tuple(raw.get("review_if", [])),
        terms=_terms(raw.get("terms")),
        scored=tuple((s["answer"], float(s["points"]), s.get("feedback", "")) for s in raw.get("scored", [])),
        languages=languages,
        misconceptions=tuple(Misconception(m["answer"], m["says"].strip(), None if m.get("points") is None
                                           else float(m["points"])) for m in raw.get("misconceptions", [])),
        wrong_answers=wrong_answer_policy(raw, wrong_answers),
        verdicts=tuple(sorted((verdicts or {}).items())) if raw["type"] == "true_false" else (),
        reasons=(raw.get("reasons") or reasons or "read") if raw["type"] in ("multiple_choice", "true_false") else "read",
    )


def _aliases(raw: dict | None) -> tuple[tuple[str, str], ...]:
    return tuple((" ".join(k.casefold().split()), v) for k, v in (raw or {}).items())


def _maths_spec(raw: dict | None) -> MathsSpec | None:
    if raw is None:
        return None
    return MathsSpec(answer=raw["answer"], symbols=tuple(raw["symbols"]), aliases=_aliases(raw.get("aliases")),
                     factor=raw.get("factor"))


def _code_spec(raw: dict | None) -> CodeSpec | None:
    if raw is None:
        return None
    return CodeSpec(answer=raw["answer"], inputs={k: tuple(v) for k, v in raw["inputs"].items()},
                    constants=dict(raw.get("constants") or {}), functions=tuple(raw.get("functions", [])),
                    variants=tuple(raw.get("variants", [])), aliases=_aliases(raw.get("aliases")),
                    wrong_names=tuple(raw.get("wrong_names", [])), notation=raw.get("notation", "any"),
                    masked=tuple(raw.get("masked", [])))


def quiz_from_data(data: Any, path: PathLike | None = None, formulas: bool = True, check: bool = True,
                   code: bool = False) -> Quiz:
    """Validate already-parsed quiz data (e.g. from a test) and build the Quiz. `check=False` only for data
    whose very text passed these checks before (checked.already_checked). `code=True` also runs each code
    question's key, accepted answers and misconceptions in the sandbox (`python -m autograder.quiz check`)."""
    if check:
        from .schema import quiz_schema_problems  # jsonschema: a tenth of a second to import

        problems = quiz_schema_problems(data)
        if not problems:
            problems = _semantic_problems(data, formulas)
        if problems:
            raise QuizFormatError(path, problems)
    languages = tuple(data.get("languages") or DEFAULT_LANGUAGES)
    extra = data.get("verdict_words") or {}
    verdicts = verdict_words(languages, {True: extra.get("true", []), False: extra.get("false", [])})
    quiz = Quiz(
        id=data["id"],
        title=data["title"],
        lesson=data["lesson"],
        objectives=tuple(data.get("objectives", [])),
        questions=tuple(_build_question(raw, languages, verdicts, data.get("wrong_answers"), data.get("reasons"))
                        for raw in data["questions"]),
        visibility=data.get("visibility"),
        languages=languages,
        source_path=str(path) if path is not None else None,
        lesson_title=data.get("lesson_title"),
        retired=tuple(data.get("retired", [])),
    )
    if check and code:
        problems = computed_contradictions(quiz)
        if problems:
            raise QuizFormatError(path, problems)
    return quiz


def computed_contradictions(quiz: Quiz) -> list[tuple[str, str]]:
    """Code entries that compute the same tensors as a misconception, run in the sandbox as answers are."""
    questions = [q for q in quiz.questions if q.code is not None]
    if not questions:
        return []
    from .outcome import shared_evaluator  # one sandbox per process, as code answers graded outside a class

    evaluator = shared_evaluator()
    return [(f"question {q.id}", text) for q in questions for text in code_contradictions(q, evaluator)]


def load_quiz(path: PathLike, formulas: bool = True, code: bool = False) -> Quiz:
    """Load and fully validate one quiz YAML file (unless this text passed the same checks before); raises
    QuizFormatError. `code=True` runs code answers in the sandbox too (quiz_from_data)."""
    text = read_text(path)
    options = "formulas=True,code=True" if code else f"formulas={formulas}"
    wider = ["formulas=True,code=True"] + ([] if code else ["formulas=True"] if not formulas else [])
    seen = any(checked.already_checked(text, o) for o in [options, *wider])
    quiz = quiz_from_data(read_yaml(path, text), path, formulas or code, check=not seen, code=code)
    if not seen:
        checked.mark_checked(text, options)
    return quiz


def load_quizzes(folder: PathLike, formulas: bool = True, code: bool = False) -> dict[str, Quiz]:
    """Load every *.yaml / *.yml quiz in `folder`, keyed by quiz id, in file-name order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise QuizFormatError(folder, [("", "quiz folder not found")])
    quizzes: dict[str, Quiz] = {}
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
        quiz = load_quiz(path, formulas, code)
        if quiz.id in quizzes:
            raise QuizFormatError(path, [("", f"quiz id '{quiz.id}' is already used by "
                                              f"{quizzes[quiz.id].source_path}")])
        quizzes[quiz.id] = quiz
    return quizzes


def load_answers(path: PathLike) -> dict[str, AnswerValue]:
    """Load a student answer file (question id -> answer); raises QuizFormatError."""
    data = read_yaml(path)
    if data is None:  # an empty file is "no answers", not a broken file
        return {}
    from .schema import answers_schema_problems

    problems = answers_schema_problems(data)
    if problems:
        raise QuizFormatError(path, problems)
    return dict(data)

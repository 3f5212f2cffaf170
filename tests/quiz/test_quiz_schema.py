"""Broken quiz and answer files are rejected with errors that name file, question and problem."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from autograder.quiz import QuizFormatError, load_answers, load_quiz, load_quizzes
from autograder.quiz.schema import ANSWERS_SCHEMA, QUIZ_SCHEMA


def _q(data: dict, qid: str) -> dict:
    return next(q for q in data["questions"] if q["id"] == qid)


def _set(qid: str, key: str, value: Any) -> Callable[[dict], None]:
    return lambda data: _q(data, qid).__setitem__(key, value)


def _delete(qid: str, key: str) -> Callable[[dict], None]:
    return lambda data: _q(data, qid).pop(key)


def _duplicate_id(data: dict) -> None:
    _q(data, "q-tf")["id"] = "q-mc"


def _drop_first_id(data: dict) -> None:
    data["questions"][1].pop("id")


def _duplicate_option_ids(data: dict) -> None:
    _q(data, "q-mc")["options"][2]["id"] = "a"


# (case, mutation, where the error must point, what it must say)
BROKEN_QUIZZES = [
    ("missing id", _drop_first_id, "question #2", "missing required key 'id'"),
    ("duplicate id", _duplicate_id, "question q-mc", "duplicate id"),
    ("bad type", _set("q-tf", "type", "essay"), "question q-tf", "'type' must be one of multiple_choice"),
    ("answer not in options", _set("q-mc", "answer", "d"), "question q-mc",
     "'answer' must be one of the option ids a, b, c"),
    ("negative points", _set("q-sa", "points", -1), "question q-sa", "'points' must be greater than 0"),
    ("zero points", _set("q-sa", "points", 0), "question q-sa", "'points' must be greater than 0"),
    ("points as text", _set("q-sa", "points", "two"), "question q-sa", "'points' must be a number, got 'two' (text)"),
    ("bad regex", _set("q-sa", "regex", ["sqrt(dk"]), "question q-sa", "'regex[0]' 'sqrt(dk' does not compile"),
    ("missing explanation", _delete("q-num", "explanation"), "question q-num",
     "missing required key 'explanation'"),
    ("empty explanation", _set("q-num", "explanation", ""), "question q-num", "'explanation' must not be empty"),
    ("wrong-typed tolerance", _set("q-num", "tolerance", "0.1"), "question q-num",
     "'tolerance' must be a number, got '0.1' (text)"),
    ("negative tolerance", _set("q-num", "tolerance", -0.5), "question q-num", "'tolerance' must be >= 0"),
    ("missing tolerance", _delete("q-num", "tolerance"), "question q-num", "missing required key 'tolerance'"),
    ("numeric answer as text", _set("q-num", "answer", "1/8"), "question q-num", "'answer' must be a number, got '1/8' (text)"),
    ("true_false answer as text", _set("q-tf", "answer", "yes please"), "question q-tf",
     "'answer' must be true or false, got 'yes please' (text)"),
    ("options on true_false", _set("q-tf", "options", [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]),
     "question q-tf", "'options' is not allowed for a true_false question"),
    ("answer on short_answer", _set("q-sa", "answer", "sqrt"), "question q-sa",
     "'answer' is not allowed for a short_answer question"),
    ("missing accepted", _delete("q-sa", "accepted"), "question q-sa", "missing required key 'accepted'"),
    ("missing mc answer", _delete("q-mc", "answer"), "question q-mc", "missing required key 'answer'"),
    ("one option only", _set("q-mc", "options", [{"id": "b", "text": "beta"}]), "question q-mc",
     "'options' needs at least 2 item(s)"),
    ("bad option id", _set("q-mc", "options", [{"id": "B", "text": "x"}, {"id": "b", "text": "y"}]),
     "question q-mc", "'options[0].id' 'B' does not match"),
    ("duplicate option ids", _duplicate_option_ids, "question q-mc", "option ids must be unique"),
    ("misspelt key", _set("q-tf", "explaination", "typo"), "question q-tf", "unknown key(s) 'explaination'"),
    ("a code key at the question's level", _set("q-sa", "notation", "code"), "question q-sa",
     "unknown key(s) 'notation'; 'notation' belongs under `code:` (code: {notation: ...})"),
    ("a maths key at the question's level", _set("q-sa", "symbols", ["d"]), "question q-sa",
     "'symbols' belongs under `maths:` (maths: {symbols: ...})"),
    ("bad source", _set("q-tf", "source", "book"), "question q-tf", "'source' must be one of knowledge-check"),
    ("missing misconception", _delete("q-tf", "misconception"), "question q-tf",
     "missing required key 'misconception'"),
    ("rubric worth more than question", _set("q-sa", "rubric", [{"keywords": ["x"], "points": 5}]),
     "question q-sa", "rubric points add up to 5"),
    ("rubric keywords not a list", _set("q-sa", "rubric", [{"keywords": "sqrt", "points": 1}]),
     "question q-sa", "'rubric[0].keywords' must be a list, got 'sqrt' (text)"),
    ("unknown objective", _set("q-tf", "objective", "Something else."), "question q-tf",
     "is not one of the quiz's objectives"),
    ("non-finite numeric answer", _set("q-num", "answer", float("nan")), "question q-num", "finite number"),
    ("bad quiz id", lambda d: d.__setitem__("id", "Mini Quiz"), "", "'id' 'Mini Quiz' does not match"),
    ("no questions", lambda d: d.__setitem__("questions", []), "", "'questions' needs at least 1 item(s)"),
    ("unassessed objective", lambda d: d["objectives"].append("Objective three."), "",
     "objective 'Objective three.' is not assessed by any question"),
    ("auto_rubric", _set("q-sa", "auto_rubric", True), "question q-sa", "'auto_rubric' is no longer supported"),
    ("accepted answer the terms cannot read", _set("q-sa", "terms", {"root": ["square root"]}), "question q-sa",
     "'accepted[0]' 'square root of d_k' uses words no term lists: dk"),
    ("phrase under two terms", _set("q-sa", "terms", {"root": ["square root"], "dk": ["dk", "square root"]}),
     "question q-sa", "phrase 'square root' is listed under both"),
    ("filler-only phrase", _set("q-sa", "terms", {"root": ["square root", "of the"], "dk": ["d_k"]}),
     "question q-sa", "phrase 'of the' has no word that is not a filler"),
    ("scored at full marks", lambda d: _q(d, "q-sa").update(
        terms={"root": ["square root"], "dk": ["d_k"]}, scored=[{"answer": "d_k", "points": 2}]),
     "question q-sa", "an answer worth full marks belongs in 'accepted'"),
    ("scored like an accepted answer", lambda d: _q(d, "q-sa").update(
        terms={"root": ["square root"], "dk": ["d_k"]}, scored=[{"answer": "square root of dk", "points": 1}]),
     "question q-sa", "states the same terms as 'accepted[0]' but scores 1, not 2"),
    ("scored without terms", _set("q-sa", "scored", [{"answer": "d_k", "points": 1}]), "question q-sa",
     "'scored' answers need 'terms'"),
    ("terms on a maths answer", lambda d: _q(d, "q-sa").update(
        maths={"answer": "sqrt(d_k)", "symbols": ["d_k"]}, terms={"root": ["square root of d_k"]}),
     "question q-sa", "'terms' are for free-text answers"),
    ("unknown language", lambda d: d.__setitem__("languages", ["en", "xx"]), "", "'languages[1]' must be one of"),
]


@pytest.mark.parametrize("case, mutate, where, what", BROKEN_QUIZZES, ids=[c[0] for c in BROKEN_QUIZZES])
def test_broken_quiz_is_rejected_with_file_question_and_reason(minimal_quiz_data, write_yaml,
                                                               case, mutate, where, what):
    mutate(minimal_quiz_data)
    path = write_yaml("broken.yaml", minimal_quiz_data)
    with pytest.raises(QuizFormatError) as info:
        load_quiz(path)
    message = str(info.value)
    expected_prefix = f"{path}: {where}: " if where else f"{path}: "
    assert any(line.startswith(expected_prefix) and what in line for line in message.splitlines()), message


def test_minimal_quiz_is_valid(minimal_quiz_data, write_yaml):
    quiz = load_quiz(write_yaml("mini.yaml", minimal_quiz_data))
    assert [q.id for q in quiz.questions] == ["q-mc", "q-tf", "q-sa", "q-num"]
    assert quiz.max_score == 5


def test_error_message_reads_as_documented(minimal_quiz_data, write_yaml):
    minimal_quiz_data["questions"][0]["answer"] = "z"
    path = write_yaml("x.yaml", minimal_quiz_data)
    with pytest.raises(QuizFormatError) as info:
        load_quiz(path)
    assert str(info.value) == f"{path}: question q-mc: 'answer' must be one of the option ids a, b, c (got 'z')"
    assert info.value.path == str(path)
    assert info.value.problems == [("question q-mc", "'answer' must be one of the option ids a, b, c (got 'z')")]


def test_all_problems_are_reported_at_once(minimal_quiz_data, write_yaml):
    _q(minimal_quiz_data, "q-sa")["points"] = -2
    _q(minimal_quiz_data, "q-num").pop("explanation")
    with pytest.raises(QuizFormatError) as info:
        load_quiz(write_yaml("two.yaml", minimal_quiz_data))
    assert len(info.value.problems) == 2


def test_duplicate_yaml_key_is_rejected(write_yaml):
    path = write_yaml("dup.yaml", "id: mini\nid: other\ntitle: T\n")
    with pytest.raises(QuizFormatError, match=r"dup\.yaml: line 2, column 1: invalid YAML: duplicate key 'id'"):
        load_quiz(path)


def test_invalid_yaml_syntax_names_the_line(write_yaml):
    path = write_yaml("syntax.yaml", "id: mini\nquestions: [\n  - oops: : :\n")
    with pytest.raises(QuizFormatError, match=r"syntax\.yaml: line \d+, column \d+: invalid YAML"):
        load_quiz(path)


def test_missing_file_and_non_mapping_file(tmp_path, write_yaml):
    with pytest.raises(QuizFormatError, match="nope.yaml: file not found"):
        load_quiz(tmp_path / "nope.yaml")
    with pytest.raises(QuizFormatError, match=r"list\.yaml: the file must be a mapping, got \[1, 2\] \(a list\)"):
        load_quiz(write_yaml("list.yaml", "- 1\n- 2\n"))


def test_load_quizzes_rejects_two_files_with_one_id(tmp_path, minimal_quiz_data, write_yaml):
    write_yaml("a.yaml", minimal_quiz_data)
    write_yaml("b.yaml", minimal_quiz_data)
    with pytest.raises(QuizFormatError, match="quiz id 'mini' is already used"):
        load_quizzes(tmp_path)


def test_schemas_declare_draft_2020_12():
    for schema in (QUIZ_SCHEMA, ANSWERS_SCHEMA):
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# --- student answer files -------------------------------------------------------------------

BROKEN_ANSWER_FILES = [
    ("list instead of mapping", "- b\n- true\n", "the file must map question ids to answers"),
    ("list as an answer", "q-mc: [a, b]\n", "question q-mc: the answer must be text, a number or true/false"),
    ("mapping as an answer", "q-sa:\n  text: sqrt\n", "question q-sa: the answer must be text"),
    ("number as question id", "1: b\n", "1 (a number) is not a valid question id"),
    ("answered twice", "q-mc: a\nq-mc: b\n", "duplicate key 'q-mc'"),
    ("not YAML", "q-mc: [b\n", "invalid YAML"),
]


@pytest.mark.parametrize("case, text, what", BROKEN_ANSWER_FILES, ids=[c[0] for c in BROKEN_ANSWER_FILES])
def test_broken_answer_file_raises_from_loader(write_yaml, case, text, what):
    path = write_yaml("quiz_mini.yaml", text)
    with pytest.raises(QuizFormatError) as info:
        load_answers(path)
    assert str(path) in str(info.value) and what in str(info.value)


def test_valid_answer_file_loads_scalars(write_yaml):
    path = write_yaml("quiz_mini.yaml", "q-mc: b\nq-tf: false\nq-num: 0.125\nq-sa: \"sqrt(d_k)\"\nq-x:\n")
    assert load_answers(path) == {"q-mc": "b", "q-tf": False, "q-num": 0.125, "q-sa": "sqrt(d_k)", "q-x": None}
    assert load_answers(write_yaml("empty.yaml", "")) == {}

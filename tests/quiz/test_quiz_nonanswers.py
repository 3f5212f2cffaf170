"""Answers that only say "I do not know" score 0 as a blank does and never wait for a person; anything that
says more is graded as written (quiz/nonanswers.py)."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from autograder.grading.quizzes import load_class_quizzes
from autograder.quiz import QuizFormatError, grade_question, quiz_from_data
from autograder.quiz.nonanswers import AROUND, PHRASES, is_non_answer

from conftest import MINIMAL_QUIZ

HERE = Path(__file__).parent
QUESTIONS = [q for quiz in load_class_quizzes() for q in quiz.questions]
LABELLED = [(question, row["answer"], float(row["score"]))
            for path in sorted(HERE.glob("*_answers.yaml"))
            for question, rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items()
            for row in rows or [] if isinstance(row, dict) and "answer" in row]
WRITTEN = {"i dont know": ["I don't know", "I dont know", "i don’t know"], "im not sure": ["I'm not sure"],
           "dont know": ["don't know"], "n a": ["N/A", "n/a"], "k a": ["k.A.", "k. A."],
           "aucune idee": ["aucune idée"], "pas didee": ["pas d'idée"], "jen sais rien": ["j'en sais rien"],
           "no se": ["no sé"], "no lo se": ["no lo sé"], "no sabria decir": ["no sabría decir"],
           "nao sei": ["não sei"], "nao faco ideia": ["não faço ideia"], "sei la": ["sei lá"],
           "weiss nicht": ["weiß nicht"], "ich weiss nicht": ["ich weiß nicht"],
           "ich weiss es nicht": ["Ich weiß es nicht"], "weiss ich nicht": ["weiß ich nicht"]}


def spellings(phrase: str) -> list[str]:
    return [phrase, *WRITTEN.get(phrase, [])]


CASES = [str.lower, str.upper, str.capitalize, str.title]
ENDS = ["", ".", "!", "?", "...", " :(", " 🤷", "?!"]
non_answers = st.builds(
    lambda phrase, case, before, after, end: " ".join([*before, case(phrase), *after]) + end,
    st.sampled_from(sorted(PHRASES)).flatmap(lambda p: st.sampled_from(spellings(p))),
    st.sampled_from(CASES), st.lists(st.sampled_from(sorted(AROUND)), max_size=2),
    st.lists(st.sampled_from(sorted(AROUND)), max_size=2), st.sampled_from(ENDS))


@settings(max_examples=400, deadline=None)
@given(text=non_answers, question=st.sampled_from(QUESTIONS))
def test_saying_you_do_not_know_scores_zero_and_waits_for_nobody(text, question):
    assert is_non_answer(text), text
    item = grade_question(question, text)
    assert item.score == 0 and not item.pending and "do not know" in item.feedback


@settings(max_examples=300, deadline=None)
@given(text=non_answers, labelled=st.sampled_from([(q, a, s) for q, a, s in LABELLED if s > 0]),
       joint=st.sampled_from([", ", ": ", " but ", " - maybe ", "... ", " "]), first=st.booleans())
def test_an_answer_beside_the_doubt_is_graded_as_written(text, labelled, joint, first):
    """"idk, maybe <a right answer>", "<a right answer>, not sure": the answer is there, so is never
    taken for no answer."""
    _, answer, _ = labelled
    combined = f"{answer}{joint}{text}" if first else f"{text}{joint}{answer}"
    assert not is_non_answer(combined), combined


def test_no_labelled_answer_that_earns_points_reads_as_no_answer():
    earning = [(q, a) for q, a, s in LABELLED if s > 0 and is_non_answer(a)]
    assert earning == []
    said = [(q, a, s) for q, a, s in LABELLED if is_non_answer(a)]
    assert said and all(s == 0 for _, _, s in said)  # the sets' "idk" answers, all scored 0 by their writer


@pytest.mark.parametrize("text", ["none", "no", "not", "nothing", "0", "-inf", "∞", "√d_k", "½", "sqrt", "pass",
                                  "skip", "softmax", "idk the name, but it divides by sqrt(d_k)", "no idea why"])
def test_short_answers_that_state_something_are_not_taken_for_no_answer(text):
    assert not is_non_answer(text)


def test_a_quiz_that_accepts_i_do_not_know_is_refused():
    data = copy.deepcopy(MINIMAL_QUIZ)
    short = next(q for q in data["questions"] if q["type"] == "short_answer")
    short["accepted"] = [*short.get("accepted", []), "no idea"]
    with pytest.raises(QuizFormatError, match="I do not know"):
        quiz_from_data(data)

"""Free text is right without review only when it states an accepted answer: siblings of the issue's cases.

Generated from each question's own terms: an accepted answer's key terms in other words (any phrase of
each term, fillers and punctuation between them) is right; the same answer with its terms reordered,
swapped for another term, one dropped, a negation or hedge or stray word inserted, or the rubric's keywords
strung together, is never right on its own (unless that exact sequence is itself an accepted answer's).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.quiz import grade_question
from autograder.quiz.grade import set_aside_hedges
from autograder.quiz.meaning import GUARDS, accepted_structures, lexicon, read_meaning, words

JOINS = [" ", ", ", " and ", " so ", " then ", " -> ", "; ", " - "]
GUARD_WORDS = sorted(GUARDS - {"n", "da", "as", "tal", "e"})  # keep words a reader would see as words
STRAY = ["attention", "faster", "parallel", "weights", "argmax", "zero", "after", "values", "encoder", "probability"]


def _free_text(real_quizzes):
    return [q for quiz in real_quizzes.values() for q in quiz.questions if q.terms]


@pytest.fixture(scope="module")
def questions(real_quizzes):
    found = _free_text(real_quizzes)
    assert found, "the quizzes have free-text questions with terms"
    return found


def _structures(q):
    return accepted_structures(q.accepted, lexicon(q.terms, q.languages))


def _phrases(q):
    return dict(q.terms)


def _say(draw, q, sequence):
    """An answer stating `sequence`, each term in one of its phrases (prefix words written out)."""
    phrases = _phrases(q)
    parts = [draw(st.sampled_from(phrases[name])).replace("*", "") for name in sequence]
    text = parts[0]
    for part in parts[1:]:
        text += draw(st.sampled_from(JOINS)) + part
    return text + draw(st.sampled_from(["", ".", " ."]))


def _credited(q, text):
    result = grade_question(q, text)
    return result.score == q.points and not result.pending


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data())
def test_an_accepted_answer_in_other_words_is_right(questions, data):
    q = data.draw(st.sampled_from(questions))
    sequence = data.draw(st.sampled_from(sorted(_structures(q))))
    text = _say(data.draw, q, sequence)
    reading = read_meaning(text, lexicon(q.terms, q.languages))
    if reading.terms == sequence and not reading.unknown:  # phrases can merge across a join: then it is another reading
        assert _credited(q, text), (q.id, text)


@SETTINGS
@given(data=st.data())
def test_reordered_swapped_or_dropped_terms_are_never_right_alone(questions, data):
    q = data.draw(st.sampled_from(questions))
    accepted = _structures(q)
    sequence = list(data.draw(st.sampled_from(sorted(accepted))))
    change = data.draw(st.sampled_from(["reorder", "swap", "drop", "repeat"]))
    names = [name for name, _ in q.terms]
    if change == "reorder":
        sequence = data.draw(st.permutations(sequence))
    elif change == "swap":
        sequence[data.draw(st.integers(0, len(sequence) - 1))] = data.draw(st.sampled_from(names))
    elif change == "drop" and len(sequence) > 1:
        del sequence[data.draw(st.integers(0, len(sequence) - 1))]
    else:
        sequence.insert(data.draw(st.integers(0, len(sequence))), data.draw(st.sampled_from(names)))
    text = _say(data.draw, q, sequence)
    reading = read_meaning(text, lexicon(q.terms, q.languages))
    if reading.terms not in accepted:
        assert not _credited(q, text), (q.id, text, reading)


@SETTINGS
@given(data=st.data())
def test_a_negation_hedge_or_stray_word_sends_an_accepted_answer_to_review(questions, data):
    q = data.draw(st.sampled_from(questions))
    text = _say(data.draw, q, data.draw(st.sampled_from(sorted(_structures(q)))))
    tokens = text.split(" ")
    word = data.draw(st.sampled_from(GUARD_WORDS + STRAY))
    tokens.insert(data.draw(st.integers(0, len(tokens))), word)
    changed = " ".join(tokens)
    reading = read_meaning(changed, lexicon(q.terms, q.languages))
    if set_aside_hedges(changed) != changed.strip():  # "probably <accepted answer>": the answer it wraps
        assert _credited(q, changed) == _credited(q, set_aside_hedges(changed)), (q.id, changed)
    elif word in words(changed) and word in reading.unknown:  # unless it became part of a term's phrase
        result = grade_question(q, changed)
        assert result.pending and result.score == 0, (q.id, changed)
        assert result.suggestion and result.meaning


@SETTINGS
@given(data=st.data())
def test_rubric_keywords_strung_together_only_ever_suggest(questions, data):
    q = data.draw(st.sampled_from([q for q in questions if q.rubric]))
    items = data.draw(st.permutations(q.rubric))
    text = data.draw(st.sampled_from([", ", " ", " and "])).join(
        data.draw(st.sampled_from(item.keywords)).rstrip("*") for item in items)
    reading = read_meaning(text, lexicon(q.terms, q.languages))
    result = grade_question(q, text)
    if reading.terms not in _structures(q) or reading.unknown:
        assert result.pending and result.suggested_score == pytest.approx(min(q.points, sum(i.points for i in q.rubric)))


@pytest.mark.parametrize("question_id, answer", [
    ("att-07", "attention compresses all encoder states into one final vector"),
    ("att-07", "the encoder compresses all encoder states into one final vector"),
    ("att-07", "one final vector instead of all encoder states"),
    ("att-04", "softmax, project, weighted sum, score"),
    ("att-04", "project score softmax weighted sum query key value attention"),
    ("att-04", "score project softmax mix"),
    ("sc-07", "the gradients grow large, so the softmax saturates and the scores vanish"),
    ("sc-07", "gradients shrink so the softmax saturates so the scores grow"),
    ("sc-07", "the softmax saturates because scores grow and gradients vanish"),
    ("sc-04", "set its score to -inf after the softmax"),
    ("sc-04", "before the softmax, set its score to 0"),
    ("sc-04", "do not set its score to -inf before softmax"),
    ("sc-01", "not an unnormalized compatibility between query i and key j"),
    ("sc-01", "a normalized compatibility between query i and key j"),
    ("sc-01", "an unnormalized compatibility maybe between query i and key j"),
    ("sc-01", "maybe not an unnormalized compatibility between query i and key j"),
    ("sc-01", "I think a normalized compatibility between query i and key j?"),
])
def test_the_issues_wrong_answers_are_never_right_alone(real_quizzes, question_id, answer):
    question = next(q for q in _free_text(real_quizzes) if q.id == question_id)
    result = grade_question(question, answer)
    assert result.score == 0, result.feedback  # pending, or a wrong answer the author scored 0


@pytest.mark.parametrize("hedge", ["maybe {}", "probably {}", "I think it's {}?", "{}, I think", "{}? not sure",
                                   "je pense que {}", "ich glaube {}"])
def test_a_hedge_around_an_accepted_answer_is_set_aside_and_around_its_siblings_is_not(real_quizzes, hedge):
    """Teachers give a right answer its points however sure its writer was; the hedge never makes a reversed,
    negated or swapped answer right."""
    q = next(q for q in _free_text(real_quizzes) if q.id == "sc-01")
    assert _credited(q, hedge.format("an unnormalized compatibility between query i and key j"))
    for sibling in ("a normalized compatibility between query i and key j", "not a raw compatibility between query i "
                    "and key j", "an unnormalized compatibility between key i and query j", "a probability"):
        assert not _credited(q, hedge.format(sibling)), hedge.format(sibling)


@pytest.mark.parametrize("question_id, answer", [
    ("att-07", "The decoder can look at all the encoder states instead of only one final vector."),
    ("att-07", "El decodificador puede ver todos los estados del codificador en lugar de un solo vector"),
    ("att-07", "the decoder attends to all encoder states rather than the last hidden state"),
    ("sc-07", "scores grow, the sofmax saturates and the gradiants vanish"),
    ("sc-04", "Set its score to -1e9 before applying the softmax"),
    ("att-04", "1. projection 2. scoring 3. softmax 4. weighted sum"),
])
def test_right_answers_in_other_words_languages_and_typos(real_quizzes, question_id, answer):
    question = next(q for q in _free_text(real_quizzes) if q.id == question_id)
    result = grade_question(question, answer)
    assert (result.score, result.pending) == (question.points, False), (result.feedback, result.meaning)


def test_every_free_text_question_has_terms_that_read_each_accepted_answer(real_quizzes):
    for q in (q for quiz in real_quizzes.values() for q in quiz.questions
              if q.type == "short_answer" and q.grading == "text"):
        assert q.terms, q.id
        assert len(_structures(q)) >= 1 and all(_credited(q, a) for a in q.accepted), q.id




def test_an_answer_whose_score_the_author_fixed_gets_it_in_other_words_only(minimal_quiz_data):
    from autograder.quiz import quiz_from_data

    question = next(q for q in minimal_quiz_data["questions"] if q["id"] == "q-sa")
    question.update(accepted=["divide by the square root of d_k"], regex=[],
                    terms={"divide": ["divide by", "divided by"], "root-dk": ["the square root of d_k", "sqrt(d_k)"],
                           "dk": ["d_k"], "multiply": ["multiply by"]},
                    scored=[{"answer": "divide by d_k", "points": 1, "feedback": "Not d_k itself: its square root."},
                            {"answer": "multiply by sqrt(d_k)", "points": 0}])
    q = quiz_from_data(minimal_quiz_data).question("q-sa")
    assert (grade_question(q, "divided by sqrt(d_k)").score, grade_question(q, "divided by sqrt(d_k)").pending) == (2, False)
    half = grade_question(q, "Divided by d_k.")
    assert (half.score, half.pending, half.feedback) == (1, False, "Not d_k itself: its square root.")
    zero = grade_question(q, "multiply by the square root of d_k")
    assert (zero.score, zero.pending, zero.feedback) == (0, False, "Incorrect.")
    assert grade_question(q, "maybe divide by d_k").pending


def test_the_reviewer_hint_reaches_the_class_results_and_survives_saving(real_quizzes, tmp_path):
    from autograder.grading.quizzes import convert, feedback_for
    from autograder.quiz import grade_quiz
    from autograder.results import StudentResult, load, save

    quiz = real_quizzes["attention"]
    graded = grade_quiz(quiz, {"att-07": "attention compresses all encoder states into one final vector"})
    item = convert(graded, tmp_path).items[[q.id for q in quiz.questions].index("att-07")]
    assert item.pending and item.suggested_score == 2 and "'compresses'" in item.suggestion
    assert item.meaning == "attention compresses <all-states> into <one-vector>"
    assert "rubric" not in feedback_for(graded.item("att-07"))  # the hint is for the reviewer, not the student
    save(StudentResult("ada", (), (convert(graded, tmp_path),)), tmp_path / "ada.json")
    assert load(tmp_path / "ada.json").quizzes[0].items == convert(graded, tmp_path).items


def test_a_very_long_answer_is_read_by_a_person_quickly(real_quizzes):
    question = next(q for q in _free_text(real_quizzes) if q.id == "att-07")
    long_answer = "The decoder can look at all encoder states instead of one final vector. " * 2000
    result = grade_question(question, long_answer)
    assert result.pending and result.score == 0


def _one_edit(word):
    letters = sorted(set(word))
    yield from (word[:i] + word[i + 1:] for i in range(len(word)))
    yield from (word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1))
    yield from (word[:i] + c + word[i:] for i in range(len(word) + 1) for c in letters)


def test_a_typo_in_a_negated_term_reads_as_it_and_never_as_its_opposite(real_quizzes):
    """'unormalized' is read as 'unnormalized' (the prefix term unnormaliz*), while one slip in 'normalized'
    (the opposite) never becomes 'unnormalized', and a dropped 'un' is never put back."""
    q = next(q for q in _free_text(real_quizzes) if q.id == "sc-01")
    answer = "an {} compatibility between query i and key j"
    slips = {t for t in _one_edit("unnormalized") if t != "unnormalized"}
    credited = [t for t in slips if _credited(q, answer.format(t))]
    assert len(credited) > len(slips) / 2, sorted(slips - set(credited))[:10]
    assert all(t.startswith("un") for t in credited), [t for t in credited if not t.startswith("un")]
    opposite = {t for w in ("normalized", "normalised", "normalizing") for t in _one_edit(w)}
    assert not [t for t in opposite if _credited(q, answer.format(t)) and not t.startswith("un")]


def _slips_of_accepted_answers():
    """(question, accepted answer, its word, that word with a slip, which slip) for every word of five or six
    letters an accepted answer shares with its question's terms."""
    from autograder.grading.quizzes import load_class_quizzes

    found = []
    for q in (q for quiz in load_class_quizzes() for q in quiz.questions if q.terms and q.grading == "text"):
        vocabulary = lexicon(q.terms, q.languages).vocabulary
        for answer in q.accepted:
            for word in {w for w in words(answer) if w.isalpha() and w in vocabulary and len(w) in (5, 6)}:
                for i in range(len(word) - 1):
                    found.append((q, answer, word, word[:i] + word[i + 1] + word[i] + word[i + 2:], "swap"))
                if len(word) == 6:
                    found += [(q, answer, word, word[:i] + word[i + 1:], "drop") for i in range(len(word))]
                found += [(q, answer, word, word[:i] + "x" + word[i + 1:], "other") for i in range(len(word))]
    return found


SLIPS = _slips_of_accepted_answers()


@settings(max_examples=300, deadline=None)
@given(case=st.sampled_from(SLIPS))
def test_a_slip_in_a_short_term_word_never_turns_credit_wrong(case):
    """Five-letter words: two letters swapped, or one left out of a six-letter word, read as the term's word
    where that is the only word it can be (the answer then earns what the accepted one earns, or waits for a
    person); any other change of a short word is never read as it: the answer waits for a person."""
    import re

    question, answer, word, slipped, kind = case
    if slipped == word:
        return
    written = re.sub(rf"(?i)\b{word}\b", slipped, answer, count=1)
    if written.lower() == answer.lower():
        return
    result = grade_question(question, written)
    if result.pending:
        return
    assert kind != "other" or len(slipped) >= 6, (written, result.feedback)
    assert result.score == question.points, (written, result.feedback)


def test_the_short_slips_the_reader_takes(real_quizzes):
    question = next(q for q in _free_text(real_quizzes) if q.id == "sc-04")
    for written in ("set its scroe to -inf before softmax", "set its score to -inf befor softmax"):
        result = grade_question(question, written)
        assert (result.score, result.pending) == (question.points, False), (written, result.feedback)
    assert SLIPS and {k for *_, k in SLIPS} == {"swap", "drop", "other"}


def _term_guards():
    """(question, accepted answer, guard word of a term that the answer uses) for every free-text question."""
    from autograder.grading.quizzes import load_class_quizzes

    found = []
    for q in (q for quiz in load_class_quizzes() for q in quiz.questions if q.terms and q.grading == "text"):
        vocabulary = lexicon(q.terms, q.languages).vocabulary
        for answer in q.accepted:
            found += [(q, answer, w) for w in set(words(answer)) if w in GUARDS and w in vocabulary and len(w) >= 6]
    return found


def test_a_typo_of_a_guard_word_of_a_term_reads_as_it_and_of_any_other_guard_never(real_quizzes):
    """'insted of' is the term 'instead of' as written (a guard read as the student wrote it); a typo of a guard
    no term uses ('becuase' beside an accepted answer) is never read as anything: a person reads it."""
    import re

    cases = _term_guards()
    assert cases, "some accepted answer uses a term's guard word (instead, without, ...)"
    for q, answer, guard in cases:
        vocabulary = lexicon(q.terms, q.languages).vocabulary
        for slipped in {s for s in _one_edit(guard) if s != guard and s not in vocabulary and s not in GUARDS}:
            written = re.sub(rf"(?i)\b{guard}\b", slipped, answer, count=1)
            result = grade_question(q, written)
            assert result.pending or result.score == q.points, (written, result.feedback)
        assert _credited(q, re.sub(rf"(?i)\b{guard}\b", guard[:2] + guard[3:], answer, count=1))  # one letter out
    q = next(q for q in _free_text(real_quizzes) if q.id == "att-07")
    assert grade_question(q, "becuase the decoder can look at all encoder states instead of one final vector").pending


@pytest.mark.parametrize("question_id, written, read_as", [
    ("att-04", "projetcion, scoring, softmax, weighted sum", "projection"),  # two readings of one prefix term
    ("sc-07", "scores grow, softmax saturats and the gradients vanish", "saturates"),  # ends as the typo does
])
def test_a_typo_with_two_candidates_that_read_alike_is_read(real_quizzes, question_id, written, read_as):
    q = next(q for q in _free_text(real_quizzes) if q.id == question_id)
    result = grade_question(q, written)
    assert (result.score, result.pending) == (q.points, False) and read_as in result.feedback, result.feedback


def test_a_typo_between_two_different_words_is_never_read():
    from autograder.quiz.meaning import _one_reading

    assert _one_reading("saturats", {"saturates": "saturates", "saturate": "saturate"}) == "saturates"
    assert _one_reading("scorse", {"scores": "scores", "scorer": "scorer"}) is None  # not one form of the other
    assert _one_reading("projetcion", {"projection": "project", "projectcion": "project"}) == "projection"
    assert _one_reading("masks", {"maske": "maske", "mask": "mask"}) is None  # neither ends as the typo does


@pytest.mark.parametrize("question_id", ["att-04", "sc-07"])
def test_step_numbers_are_read_only_when_they_count_in_the_order_written(real_quizzes, question_id):
    """"1) project 2) score ..." is the list; "4) project 3) score ..." numbers the steps in reverse, and
    "(2) ... (1) ..." swaps them: their numbers are the order, so a person reads them. A "!" no word ends
    ("softmax, ! mix") is a "not"."""
    import itertools

    q = next(q for q in _free_text(real_quizzes) if q.id == question_id)
    phrases = _phrases(q)
    structure = max(_structures(q), key=len)
    steps = [phrases[name][0].replace("*", "") for name in structure]
    for style in ("{}) {}", "{}. {}", "({}) {}"):
        assert _credited(q, " ".join(style.format(i + 1, s) for i, s in enumerate(steps))), style
        for order in itertools.permutations(range(1, len(steps) + 1)):
            if list(order) != list(range(1, len(steps) + 1)):
                written = " ".join(style.format(n, s) for n, s in zip(order, steps))
                assert not _credited(q, written), written
    assert not _credited(q, ", ".join(steps[:-1] + ["! " + steps[-1]]))


def test_first_opening_an_answer_says_nothing_and_anywhere_else_it_may_reorder(real_quizzes):
    q = next(q for q in _free_text(real_quizzes) if q.id == "att-04")
    assert _credited(q, "first project, then score, then softmax, finally mix")
    assert _credited(q, "Firstly project, score, softmax, weighted sum")
    assert not _credited(q, "score, but first project, then softmax, mix")
    assert not _credited(q, "softmax, score, mix, first project")

"""The review page: served on 127.0.0.1 to the token's holder only; each decision lands in OUT/review.yaml
before the page shows it; and a teacher clears a class's review (200 students in `make bench-review`) with the keyboard in a real
headless browser (Debian's chromium driven by Playwright), the server killed halfway through."""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.grading.quizzes import grade_class_quizzes, load_class_quizzes
from autograder.quiz import grade_question, load_quiz, load_quizzes
from autograder.quiz.grade import review_text
from autograder.quiz.review import QUEUE, REVIEW_FILE, build_review, load_decisions, save_review, write_review
from autograder.quiz.review_page.server import ReviewServer
from tests.quiz import review_class

CHROMIUM = Path("/usr/bin/chromium")
QUEUE_DATA = {"attention_score": {"sc-01": {
    "how strongly query i likes key j": {"answer": "how strongly query i likes key j", "students": ["ann", "cy"]},
    "how strongly query i like key j": {"answer": "How strongly query i like key j.", "students": ["ben"]},
    "the affinity of q_i for k_j": {"answer": "the affinity of q_i for k_j", "students": ["dee"]},
}}}


@pytest.fixture
def served(tmp_path):
    quizzes = {q.id: q for q in load_class_quizzes()}
    (tmp_path / QUEUE).parent.mkdir(parents=True)
    (tmp_path / QUEUE).write_text(json.dumps(QUEUE_DATA), encoding="utf-8")
    document, groups, _ = build_review(QUEUE_DATA, quizzes, None)
    assert groups == 2
    save_review(tmp_path / REVIEW_FILE, document)
    server = ReviewServer(tmp_path)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, quizzes, tmp_path
    server.shutdown()
    server.server_close()


def request(server, method, path, body=None, host=None, token=True):
    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    target = f"{path}?token={server.token}" if token is True else f"{path}{token or ''}"
    headers = {"Host": host or f"127.0.0.1:{port}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    connection.request(method, target, body=data, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, payload


def test_the_page_is_local_and_needs_its_token(served):
    server, _, _ = served
    assert server.server_address[0] == "127.0.0.1"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{32}", server.url)
    for path in ("/", "/api/state"):
        assert request(server, "GET", path, token="")[0] == 403
        assert request(server, "GET", path, token="?token=" + "x" * 32)[0] == 403
        assert request(server, "GET", path, host="attacker.example:80")[0] == 403  # DNS rebinding
    assert request(server, "POST", "/api/decide", {"quiz": "attention_score"}, token="")[0] == 403
    status, page = request(server, "GET", "/")
    assert status == 200 and b"Quiz review" in page and server.token.encode() in page
    script = page.split(b"<script nonce=")[1]
    assert b"/*SCRIPT*/" not in page and b"http" not in script  # nothing is fetched from elsewhere
    assert b"src=" not in page and b"<link" not in page


def test_each_decision_is_in_review_yaml_before_the_page_hears_back(served):
    server, quizzes, out = served
    state = json.loads(request(server, "GET", "/api/state")[1])
    (question,) = state["questions"]
    big = max(question["groups"], key=lambda g: len(g["students"]))
    assert big["students"] == ["ann", "ben", "cy"] and len(big["answers"]) == 2
    assert {a["text"]: a["students"] for a in big["answers"]} == {
        "how strongly query i likes key j": ["ann", "cy"], "How strongly query i like key j.": ["ben"]}
    where = {"quiz": "attention_score", "question": "sc-01", "group": big["index"], "first": big["answers"][0]["text"]}
    status, _ = request(server, "POST", "/api/decide", {**where, "score": 1.5, "feedback": "say 'unnormalised'"})
    assert status == 200
    decisions = load_decisions(out / REVIEW_FILE, quizzes)  # what the next grading applies
    assert decisions.get("attention_score", "sc-01", "how strongly query i like key j").score == 1.5
    assert decisions.get("attention_score", "sc-01", "how strongly query i likes key j").feedback == "say 'unnormalised'"
    assert not list(out.glob(".review.yaml.*"))  # written through a temporary file, nothing left behind

    before = (out / REVIEW_FILE).read_text(encoding="utf-8")
    assert request(server, "POST", "/api/decide", {**where, "score": 3})[0] == 400  # over the question's 2 points
    assert request(server, "POST", "/api/decide", {**where, "first": "another answer", "score": 1})[0] == 409
    assert (out / REVIEW_FILE).read_text(encoding="utf-8") == before

    status, body = request(server, "POST", "/api/split", {**where, "answer": 1})
    assert status == 200
    groups = json.loads(body)["questions"][0]["groups"]
    assert [g["students"] for g in groups if g["answers"][0]["text"].startswith("How strongly")] == [["ben"]]
    assert [g["students"] for g in groups if g["answers"][0]["text"].startswith("how strongly")] == [["ann", "cy"]]
    document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    assert len(document["attention_score"]["sc-01"]["groups"]) == 3


# --- the browser -------------------------------------------------------------------------------------

def launched(driver):
    """Headless Chromium as every review-page test drives it (no network, no first-run pages)."""
    return driver.chromium.launch(executable_path=str(CHROMIUM), args=[
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"])


def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (requirements-test.txt pins it: make test installs it)")
    if not CHROMIUM.is_file():
        pytest.skip(f"no chromium at {CHROMIUM}: `make browser-tools` (or apt-get install chromium) installs it")
    return sync_playwright


def start_review(out: Path):
    """`attnkit review OUT --no-open` in its own process; returns (process, URL it printed)."""
    process = subprocess.Popen([sys.executable, "-m", "autograder.cli", "review", "--no-open", str(out)],
                               cwd=paths.ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    for line in process.stderr:
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line)
        if found:
            threading.Thread(target=process.stderr.read, daemon=True).start()  # keep the pipe drained
            return process, found.group()
    raise AssertionError(f"attnkit review printed no address (exit {process.wait()})")


def keys_for(score: float, points: float, suggested: float | None) -> list[str]:
    """The fewest presses that give `score`."""
    if suggested is not None and abs(suggested - score) < 1e-9:
        return ["a"]
    if score == points:
        return ["f"]
    if score == 0:
        return ["n"]
    if float(score).is_integer() and score <= 9:
        return [str(int(score))]
    if abs(score - points / 2) < 1e-9:
        return ["h"]
    if float(score * 2).is_integer() and score < 10:
        return [f"Shift+Digit{int(score)}"]
    return ["e", *f"{score:g}", "Enter"]


CURRENT = """() => { const g = document.querySelector('.group.current');
  const meta = document.querySelector('#question .meta').textContent.split(' · ');
  const s = g.querySelector('.suggested'), h = g.querySelector('.hint');
  return {question: meta[1], points: parseFloat(meta[2]), index: Number(g.dataset.index),
          answers: [...g.querySelectorAll('ol > li')].map((li) => li.firstChild.textContent),
          suggested: s ? parseFloat(s.textContent.replace('suggested: ', '')) : null, hint: h ? h.textContent : '',
          who: g.querySelector('.who') ? g.querySelector('.who').textContent : ''}; }"""


# `make bench-review` runs the test below on the 200-student class of issue 19 and prints the minutes; the suite
# runs it on a class of 40 (the same behaviour, a fifth of the browser's round trips).
CLASS_SIZE = int(os.environ.get("ATTNKIT_REVIEW_CLASS", "40"))


@pytest.mark.slow
def test_a_teacher_clears_a_class_review_with_the_keyboard(tmp_path):
    sync_playwright = browser()
    labels = review_class.build(tmp_path / "class", students=CLASS_SIZE)
    hostile = '<img src=x onerror="document.body.dataset.pwned = 1">'  # shown as text, never run
    (tmp_path / "class" / "zz-hostile").mkdir()
    (tmp_path / "class" / "zz-hostile" / "quiz_attention_score.yaml").write_text(
        yaml.safe_dump({"sc-01": hostile}), encoding="utf-8")
    labels["sc-01", review_text(hostile)] = 0.0
    folders = {p.name: p for p in sorted((tmp_path / "class").iterdir())}
    out = tmp_path / "out"
    grade_class_quizzes(folders, out)
    queue = json.loads((out / QUEUE).read_text(encoding="utf-8"))
    pending_students = {(qid, text): entry["students"] for q in queue.values() for qid, a in q.items()
                        for text, entry in a.items()}

    process, url = start_review(out)
    start = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    per_question = {qid: (len(b["groups"]), sum(len(g["answers"]) for g in b["groups"]),
                          sum(len(g["students"]) for g in b["groups"])) for q in start.values() for qid, b in q.items()}
    total_groups = sum(g for g, _, _ in per_question.values())
    assert total_groups > 0
    presses, splits, decisions, read = 0, 0, 0, []
    decided, split_in = [], []  # (question, wordings, key presses) per decision; question per split
    killed = seen_hostile = False
    computed = {q.id for quiz in load_class_quizzes() for q in quiz.questions
                if q.type == "short_answer" and q.grading in ("maths", "code")}  # `a` must work on every such group
    try:
        with sync_playwright() as driver:
            chromium = launched(driver)
            page = chromium.new_page()
            page.set_default_timeout(300_000)  # waits are for events; a busy machine only makes them slower
            page.goto(url)
            page.wait_for_selector(".group.current")

            # Who is in the group: shown on demand, not counted as clearing work.
            page.keyboard.press("w")
            assert page.evaluate(CURRENT)["who"], "w shows the students of the group"
            page.keyboard.press("w")

            def press(key):
                nonlocal presses
                presses += 1
                saved = page.evaluate("document.body.dataset.saved || '0'")
                page.keyboard.press(key)
                return saved

            def wait_saved(before):
                page.wait_for_function("(before) => (document.body.dataset.saved || '0') !== before || "
                                       "document.getElementById('status').className === 'error'", arg=before)
                assert page.evaluate("document.getElementById('status').className") != "error", \
                    page.evaluate("document.getElementById('status').textContent")

            # Feedback for a group's students, typed on the page, lands in the file (not a clearing step).
            first = page.evaluate(CURRENT)["answers"][0]
            before = page.evaluate("document.body.dataset.saved || '0'")
            page.keyboard.press("c")
            page.keyboard.type("See the lesson's section on scaling.")
            page.keyboard.press("Enter")
            wait_saved(before)
            document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
            assert [g["feedback"] for q in document.values() for b in q.values() for g in b["groups"]
                    if g["answers"][0] == first] == ["See the lesson's section on scaling."]

            for _ in range(4 * total_groups):
                if page.evaluate("document.body.dataset.pending") == "0":
                    break
                group = page.evaluate(CURRENT)
                seen_hostile = seen_hostile or hostile in group["answers"]
                # formulas and code: what was read and computed is shown, as a hint or (a rule's) suggestion
                assert group["question"] not in computed or group["suggested"] is not None or group["hint"], group
                scores = [labels[group["question"], review_text(a)] for a in group["answers"]]
                odd = next((i for i, s in enumerate(scores) if s != scores[0]), None)
                if odd is not None:  # the teacher scores these differently: split one off
                    splits += 1
                    split_in.append(group["question"])
                    press("s")
                    wait_saved(press(str(odd + 1)))
                    continue
                read.append(len(group["answers"]))
                if group["hint"] and group["suggested"] is None:
                    # a hint is taken by no key: were `a` to score this group, the keys below would land on the
                    # next group, and the grading at the end would find its answers at the wrong scores
                    page.keyboard.press("a")
                keys = keys_for(scores[0], group["points"], group["suggested"])
                decided.append((group["question"], len(group["answers"]), len(keys)))
                for key in keys[:-1]:
                    press(key)
                wait_saved(press(keys[-1]))
                decisions += 1
                if not killed and decisions == total_groups // 2:
                    # The server dies mid-review: every decision the page showed is in review.yaml.
                    process.send_signal(signal.SIGKILL)
                    process.wait()
                    killed = True
                    document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
                    assert sum(g["score"] is not None for q in document.values() for b in q.values()
                               for g in b["groups"]) == decisions
                    process, url = start_review(out)  # a new server, a new token
                    page.goto(url)
                    page.wait_for_selector(".group.current")
            assert page.evaluate("document.body.dataset.pending") == "0"
            assert page.is_visible("#done")
            assert seen_hostile and page.evaluate("document.body.dataset.pwned") is None
            chromium.close()
        process.send_signal(signal.SIGINT)  # Ctrl-C: the server stops cleanly
        assert process.wait(timeout=120) == 0
    finally:  # a failed run leaves no server behind
        if process.poll() is None:
            process.kill()
            process.wait()
    assert killed

    # Grading applies every decision: nothing pending, every reviewed answer at the teacher's score.
    again = grade_class_quizzes(folders, out)
    items = {(sid, item.question_id): item for sid, results in again.items() for r in results for item in r.items}
    for (qid, text), students in pending_students.items():
        for sid in students:
            assert not items[sid, qid].pending and items[sid, qid].score == labels[qid, text], (sid, qid, text)

    minutes = review_class.minutes(read, presses, splits)
    print(f"\n{CLASS_SIZE}-student class from {', '.join(p.name for p in review_class.labelled_sources())}:")
    print(f"{'question':10} {'groups':>6} {'wordings':>8} {'students':>8}")
    for qid, (groups, wordings, students) in sorted(per_question.items()):
        print(f"{qid:10} {groups:6d} {wordings:8d} {students:8d}")
    print(f"pending groups {total_groups}; decisions {decisions}, splits {splits}, key presses {presses} "
          f"({presses / max(decisions, 1):.2f} per decision)")
    print(f"model: {review_class.READ_GROUP:g} s to read a group, +{review_class.READ_WORDING:g} s per further "
          f"wording, {review_class.PRESS:g} s per key press, {review_class.SPLIT_DECISION:g} s per split: "
          f"{minutes:.1f} minutes to clear review")
    assert len(decided) == decisions and sum(k for _, _, k in decided) + 2 * len(split_in) == presses
    free_text = {q.id for quiz in load_class_quizzes() for q in quiz.questions
                 if q.type == "short_answer" and q.grading == "text"}
    for name, free in (("free text", True), ("other types", False)):  # where the minutes go
        mine = [(w, k) for qid, w, k in decided if (qid in free_text) == free]
        own_splits = sum((qid in free_text) == free for qid in split_in)
        spent = review_class.minutes([w for w, _ in mine], sum(k for _, k in mine) + 2 * own_splits, own_splits)
        print(f"  {name}: {len(mine)} groups, {spent:.1f} minutes")
    assert presses <= 1.5 * decisions + 2 * splits, "most groups take one key press"


def test_the_suggestion_and_its_reason_are_read_defensively():
    from types import SimpleNamespace

    from autograder.grading.quizzes import _suggestion
    from autograder.quiz.review import suggestion

    question = next(q for quiz in load_class_quizzes() for q in quiz.questions if q.rubric)
    given = {"answer": "anything", "suggested": 1.5 if question.points >= 1.5 else question.points, "why": "close"}
    assert suggestion(question, given) == (given["suggested"], "close", False)  # a hint: no rule gives it
    assert suggestion(question, {**given, "certain": True}) == (given["suggested"], "close", True)
    rubric = suggestion(question, {"answer": "anything"})
    for broken in (True, question.points + 1, -1, "2", None):  # never trusted: the rubric's count instead
        assert suggestion(question, {**given, "suggested": broken}) == rubric
    assert rubric[0] is not None and "hint" in rubric[1]
    assert _suggestion(SimpleNamespace(suggested_score=1.0, suggestion="near an accepted answer")) == \
        {"suggested": 1.0, "why": "near an accepted answer"}
    assert _suggestion(SimpleNamespace(suggested_score=0.0, suggestion="a wrong option", suggestion_certain=True)) == \
        {"suggested": 0.0, "why": "a wrong option", "certain": True}
    assert _suggestion(SimpleNamespace(suggested_score=None, suggestion="")) == {}  # nothing suggested, nothing added


def test_an_edit_made_in_the_file_meanwhile_is_kept(served):
    server, quizzes, out = served
    document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    groups = document["attention_score"]["sc-01"]["groups"]
    alone = next(g for g in groups if g["students"] == ["dee"])
    alone["score"], alone["feedback"] = 0, "edited by hand"
    (out / REVIEW_FILE).write_text(yaml.safe_dump(document), encoding="utf-8")
    state = json.loads(request(server, "GET", "/api/state")[1])
    big = next(g for g in state["questions"][0]["groups"] if "ann" in g["students"])
    where = {"quiz": "attention_score", "question": "sc-01", "group": big["index"], "first": big["answers"][0]["text"]}
    assert request(server, "POST", "/api/decide", {**where, "score": 2})[0] == 200
    decisions = load_decisions(out / REVIEW_FILE, quizzes)
    assert decisions.get("attention_score", "sc-01", "the affinity of q_i for k_j").feedback == "edited by hand"
    assert decisions.get("attention_score", "sc-01", "how strongly query i likes key j").score == 2
    (out / REVIEW_FILE).write_text("sc-01: [unclosed", encoding="utf-8")
    status, body = request(server, "POST", "/api/decide", {**where, "score": 1})
    assert status == 409 and "not valid YAML" in json.loads(body)["error"]
    assert (out / REVIEW_FILE).read_text(encoding="utf-8") == "sc-01: [unclosed"  # never overwritten


def test_a_split_survives_gathering_again(served):
    server, quizzes, out = served
    state = json.loads(request(server, "GET", "/api/state")[1])
    big = next(g for g in state["questions"][0]["groups"] if len(g["answers"]) == 2)
    where = {"quiz": "attention_score", "question": "sc-01", "group": big["index"], "first": big["answers"][0]["text"]}
    assert request(server, "POST", "/api/split", {**where, "answer": 1})[0] == 200
    existing = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    document, to_decide, _ = build_review(QUEUE_DATA, quizzes, existing)  # `attnkit review OUT` run again
    assert to_decide == 3
    assert sorted(g["students"] for g in document["attention_score"]["sc-01"]["groups"]) == \
        [["ann", "cy"], ["ben"], ["dee"]]


# --- keep a decision for later terms -------------------------------------------------------------------

KEEP_CLASS = {"s1": {"attention_score": {"sc-07": "the scores get too big, so the softmax saturates"}},
              "s2": {"attention": {"att-07": "it fixes the bottleneck"}},
              "s3": {"attention": {"att-07": "it fixes that bottleneck"}},
              "s5": {"attention_score": {"sc-07": '<img src=x onerror="document.body.dataset.pwned = 1">'}}}
KEEP_SCORES = {"the scores get too big, so the softmax saturates": "2",  # of 3: the scored reading's points
               "it fixes the bottleneck": "1", "it fixes that bottleneck": "n",
               '<img src=x onerror="document.body.dataset.pwned = 1">': "n"}


def _keep_class(tmp_path, sheets):
    """A graded class in tmp_path/out over a copy of the quiz files in tmp_path/quizzes."""
    quizzes_dir = tmp_path / "quizzes"
    shutil.copytree(paths.QUIZZES_DIR, quizzes_dir)
    for sid, sheet in sheets.items():
        (tmp_path / "class" / sid).mkdir(parents=True)
        for quiz, answers in sheet.items():
            (tmp_path / "class" / sid / f"quiz_{quiz}.yaml").write_text(yaml.safe_dump(answers), encoding="utf-8")
    folders = {p.name: p for p in sorted((tmp_path / "class").iterdir())}
    out = tmp_path / "out"
    grade_class_quizzes(folders, out, quizzes=load_class_quizzes(quizzes_dir))
    write_review(out, load_quizzes(quizzes_dir))
    return quizzes_dir, folders, out


def test_keeping_a_group_needs_its_decision_and_writes_only_the_diff_shown(tmp_path):
    quizzes_dir, _, out = _keep_class(tmp_path, KEEP_CLASS)
    server = ReviewServer(out, quizzes=quizzes_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        state = json.loads(request(server, "GET", "/api/state")[1])
        sc07 = next(q for q in state["questions"] if q["id"] == "sc-07")
        (group,) = [g for g in sc07["groups"] if g["answers"][0]["text"].startswith("the scores get too big")]
        where = {"quiz": "attention_score", "question": "sc-07", "group": group["index"],
                 "first": group["answers"][0]["text"]}
        status, body = request(server, "POST", "/api/keep", where)
        assert status == 400 and "score the group first" in json.loads(body)["error"]
        assert request(server, "POST", "/api/decide", {**where, "score": 2})[0] == 200
        status, body = request(server, "POST", "/api/keep", where)
        keep = json.loads(body)["keep"]
        assert status == 200 and keep["label"] == "misconception at 2 of 3 point(s)"
        assert '"scores get too big"' in keep["diff"] and keep["additions"] == [
            "'the scores get too big, so the softmax saturates' at 2: phrase 'scores get too big' for term 'scores-grow'"]
        quiz_file = quizzes_dir / "attention_score.yaml"
        before = quiz_file.read_text(encoding="utf-8")
        status, body = request(server, "POST", "/api/keep/write", {**where, "digest": "0" * 64})
        assert status == 409 and json.loads(body)["keep"]["digest"] == keep["digest"]  # shown again, not written
        assert quiz_file.read_text(encoding="utf-8") == before
        status, body = request(server, "POST", "/api/keep/write", {**where, "digest": keep["digest"]})
        assert status == 200 and json.loads(body)["keep"]["written"] == [str(quiz_file)]
        assert '"scores get too big"' in quiz_file.read_text(encoding="utf-8")
        load_quiz(quiz_file)  # schema and loader checks, in full
    finally:
        server.shutdown()
        server.server_close()


def test_keeping_is_refused_when_it_would_change_an_answer_the_kit_scored_by_itself(tmp_path):
    """The class's own answers the kit scored are decided too (tests/quiz/test_quiz_learn.py has the case)."""
    from autograder.quiz.kit_scored import KIT_SCORED
    from tests.quiz.keep_cases import DECIDED, KIT_SCORED_2, REFUSAL

    answers = {"s1": DECIDED, "s2": KIT_SCORED_2, "s3": KIT_SCORED_2}
    quizzes_dir, _, out = _keep_class(tmp_path, {sid: {"attention": {"att-07": a}} for sid, a in answers.items()})
    server = ReviewServer(out, quizzes=quizzes_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        state = json.loads(request(server, "GET", "/api/state")[1])
        (group,) = next(q for q in state["questions"] if q["id"] == "att-07")["groups"]
        where = {"quiz": "attention", "question": "att-07", "group": group["index"], "first": DECIDED}
        assert request(server, "POST", "/api/decide", {**where, "score": 2})[0] == 200
        status, body = request(server, "POST", "/api/keep", where)
        keep = json.loads(body)["keep"]
        assert status == 200 and not keep["diff"] and not keep["additions"]
        assert keep["refused"] == [
            f"{DECIDED!r} at 2: phrase 'one final vecter' for term 'one-vector' - refused: {REFUSAL}"]
        status, body = request(server, "POST", "/api/keep/write", {**where, "digest": keep["digest"]})
        assert status == 400 and "nothing to add" in json.loads(body)["error"]
        (out / KIT_SCORED).unlink()  # a class graded by a kit that did not record its own scores
        status, body = request(server, "POST", "/api/keep", where)
        assert status == 400 and "grade the class again" in json.loads(body)["error"]
    finally:
        server.shutdown()
        server.server_close()
    assert (quizzes_dir / "attention.yaml").read_text(encoding="utf-8") == \
        (paths.QUIZZES_DIR / "attention.yaml").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_teacher_keeps_a_decision_for_later_terms_and_a_regrade_applies_it(tmp_path):
    """On the page: decide, click "keep for later terms", read the diff (or why it is refused), write it; the
    next grading scores a wording no one reviewed by itself."""
    sync_playwright = browser()
    quizzes_dir, folders, out = _keep_class(tmp_path, KEEP_CLASS)
    quiz_files = {p.name: p.read_text(encoding="utf-8") for p in quizzes_dir.glob("*.yaml")}
    server = ReviewServer(out, quizzes=quizzes_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as driver:
            chromium = launched(driver)
            page = chromium.new_page()
            page.set_default_timeout(300_000)
            page.goto(server.url)
            page.wait_for_selector(".group.current")

            def wait_saved(before):
                page.wait_for_function("(b) => (document.body.dataset.saved || '0') !== b", arg=before)

            while page.evaluate("document.body.dataset.pending") != "0":
                group = page.evaluate(CURRENT)
                before = page.evaluate("document.body.dataset.saved || '0'")
                if len(group["answers"]) > 1:  # "the" and "that" read the same; the teacher scores them apart
                    page.keyboard.press("s")
                    page.keyboard.press(str(group["answers"].index("it fixes that bottleneck") + 1))
                else:
                    page.keyboard.press(KEEP_SCORES[group["answers"][0]])
                wait_saved(before)

            # Refused, with the reason shown: the addition would score a decided answer otherwise.
            page.keyboard.press("[")
            page.locator(".group", has_text="it fixes the bottleneck").locator("button.keep").click()
            page.wait_for_selector("#keep li.refused")
            assert "accept this reading" not in page.inner_text("#keep-title")
            assert "'it fixes that bottleneck' was decided 0, and would score 1" in page.inner_text("#keep-lines")
            assert page.is_disabled("#keep-write")
            page.keyboard.press("Escape")
            assert page.is_hidden("#keep")
            page.keyboard.press("l")  # the key does what the button does, for the current group
            page.wait_for_selector("#keep li")
            page.keyboard.press("Escape")
            assert page.is_hidden("#keep")

            # Kept: the diff is shown, then written.
            page.keyboard.press("]")
            page.locator(".group", has_text="the scores get too big").locator("button.keep").click()
            page.wait_for_function("() => document.getElementById('keep-diff').textContent.includes('scores get too big')")
            assert page.inner_text("#keep-title") == "misconception at 2 of 3 point(s)"
            assert "at 2: phrase 'scores get too big' for term 'scores-grow'" in page.inner_text("#keep-lines")
            page.click("#keep-write")
            page.wait_for_function("() => document.body.dataset.kept === '1'")
            assert "grade again" in page.inner_text("#keep-note")
            page.keyboard.press("Escape")

            # An answer's markup, quoted in what the panel says, is shown as text, never run.
            page.locator(".group", has_text="<img src=x").locator("button.keep").click()
            page.wait_for_function("() => document.getElementById('keep-lines').textContent.includes('<img src=x')")
            assert page.evaluate("document.body.dataset.pwned") is None and page.is_disabled("#keep-write")
            chromium.close()
    finally:
        server.shutdown()
        server.server_close()
    assert (quizzes_dir / "attention.yaml").read_text(encoding="utf-8") == quiz_files["attention.yaml"]
    learned = load_quiz(quizzes_dir / "attention_score.yaml")  # schema and loader checks, in full
    assert '"scores get too big"' in (quizzes_dir / "attention_score.yaml").read_text(encoding="utf-8")

    # The next grading: a wording no one reviewed reads the same and is scored by the kit, at the decided points.
    later = tmp_path / "class" / "s4"
    later.mkdir()
    (later / "quiz_attention_score.yaml").write_text(
        yaml.safe_dump({"sc-07": "The scores get too big and so the softmax saturates."}), encoding="utf-8")
    folders["s4"] = later
    again = grade_class_quizzes(folders, out, quizzes=load_class_quizzes(quizzes_dir))
    items = {(sid, item.question_id): item for sid, results in again.items() for r in results for item in r.items}
    assert not items["s4", "sc-07"].pending and items["s4", "sc-07"].score == 2
    assert grade_question(learned.question("sc-07"), "the scores get too big, so the softmax saturates").score == 2
    assert (items["s2", "att-07"].score, items["s3", "att-07"].score) == (1, 0)  # the review's decisions


def test_a_quiz_file_that_cannot_be_written_is_said_and_left_as_it_was(tmp_path, monkeypatch):
    from autograder import results
    from autograder.quiz.review_page.keep import write

    quiz_file = tmp_path / "attention_score.yaml"
    quiz_file.write_text("before\n", encoding="utf-8")

    def refuse(path, text, durable=True):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(results, "write_atomic", refuse)
    import hashlib
    shown = "--- a/attention_score.yaml\n"
    with pytest.raises(ValueError, match="could not be written \\(Permission denied\\); the quiz file is as it was"):
        write({"attention_score": "after\n"}, {"attention_score": quiz_file},
              hashlib.sha256(shown.encode()).hexdigest(), shown)
    assert quiz_file.read_text(encoding="utf-8") == "before\n"

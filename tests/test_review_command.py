"""Review in one command: the command `make grade` prints for the answers it left to a person works as printed
(under make: `make review OUT=...`, as the Makefile runs it; else this environment's `attnkit`), serves the
page, and with nothing to review says so in one sentence and serves nothing."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.quiz.review import REVIEW_FILE
from tests.classroom import stub_text, write_class

pytestmark = pytest.mark.slow

FREE_TEXT = {"sc-01": "how strongly query i likes key j"}  # read by a person: pending


def a_class(root: Path) -> Path:
    quiz = "".join(f"{k}: |-\n  {v}\n" for k, v in FREE_TEXT.items())
    return write_class(root, {"ann": {"attention_scores.py": stub_text("attention_scores"),
                                      "quiz_attention_score.yaml": quiz}})


def grade(submissions: Path, out: Path, **env: str) -> str:
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(submissions), "--out", str(out),
                          "--workers", "1"], cwd=paths.ROOT, capture_output=True, text=True, timeout=600,
                         env={**{k: v for k, v in os.environ.items() if k != "ATTNKIT_VIA_MAKE"}, **env})
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stderr


def printed_command(terminal: str) -> str:
    found = re.search(r"wait for review \(pending, not 0\): run `([^`]+)`", " ".join(terminal.split()))
    assert found, terminal
    return found.group(1)


def as_make_runs_it(command: str, target: str = "review") -> list[str]:
    """What make would run for the printed `make review ...` (a dry run: the kit's set-up is not redone)."""
    words = shlex.split(command)
    assert words[:2] == ["make", target], command
    dry = subprocess.run(["make", "--no-print-directory", "-n", *words[1:]], cwd=paths.ROOT, capture_output=True,
                         text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    last = dry.stdout.strip().splitlines()[-1]
    assert f"autograder.cli {target}" in last, dry.stdout
    words = shlex.split(last)
    assert words[0] == "ATTNKIT_VIA_MAKE=1", last  # how the command knows the kit's make runs it
    return words[1:]  # the environment is the caller's to give


def test_the_printed_make_review_serves_the_page_and_then_says_when_nothing_is_left(tmp_path):
    out = tmp_path / "out"
    command = printed_command(grade(a_class(tmp_path / "class"), out, ATTNKIT_VIA_MAKE="1"))
    assert command.startswith("make review OUT=")
    argv = as_make_runs_it(command)

    review = subprocess.Popen(argv, cwd=paths.ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                              env={**os.environ, "BROWSER": "true", "ATTNKIT_VIA_MAKE": "1"})  # no browser opens
    try:
        lines = []
        for line in review.stderr:
            lines.append(line)
            if "review page: http" in line:
                break
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", "".join(lines)).group(0)
        with urllib.request.urlopen(url, timeout=30) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
    finally:
        review.send_signal(signal.SIGINT)
        review.wait(timeout=60)

    # Every group decided: nothing to review, one sentence, no server (the command returns by itself).
    document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    for block in document.values():
        for question in block.values():
            for group in question["groups"]:
                group["score"] = 1
    (out / REVIEW_FILE).write_text(yaml.safe_dump(document), encoding="utf-8")
    done = subprocess.run(argv, cwd=paths.ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "BROWSER": "false", "ATTNKIT_VIA_MAKE": "1"})
    said = " ".join(done.stderr.split())
    assert done.returncode == 0 and "review page" not in said
    regrade = f"make grade SUBMISSIONS={tmp_path / 'class'} OUT={out}"
    assert said == f"Nothing to review in {out}: every decision is made in {out / REVIEW_FILE}; run `{regrade}` " \
                   "to apply 1 of them."

    # Graded again with the command printed: the decision is applied, nothing waits, no review command is printed.
    again = subprocess.run(as_make_runs_it(regrade, "grade"), cwd=paths.ROOT, capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 0 and "wait for review" not in again.stderr
    assert f"review: 1 answer(s) scored by the decisions in {out / REVIEW_FILE}" in " ".join(again.stderr.split())
    done = subprocess.run(argv, cwd=paths.ROOT, capture_output=True, text=True, timeout=120)
    assert " ".join(done.stderr.split()) == f"Nothing to review in {out}: no quiz answer waits for a person."


def test_the_printed_command_works_outside_make(tmp_path):
    out = tmp_path / "out"
    command = printed_command(grade(a_class(tmp_path / "class"), out))
    assert not command.startswith("make") and command.endswith(f"review {shlex.quote(str(out))}")
    run = subprocess.run(f"{command} --file", shell=True, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PATH": "/usr/bin:/bin"})  # attnkit not on PATH
    assert run.returncode == 0, run.stderr
    assert "1 group(s) of answers" in run.stderr and (out / REVIEW_FILE).is_file()
    said = " ".join(run.stderr.split())  # and how to grade again, as it works here (paths from this folder)
    regrade = re.search(r"then run `([^`]+)` to apply the decisions", said).group(1)
    assert regrade == f"{command.rsplit(' review ', 1)[0]} grade class --out out"
    again = subprocess.run(regrade, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert again.returncode == 0 and "resuming: 1 of 1 already graded" in again.stderr, again.stderr[-2000:]


def test_a_class_without_quiz_answers_to_read_writes_no_review_file(tmp_path):
    write_class(tmp_path / "class", {"ann": {"attention_scores.py": stub_text("attention_scores")}})
    out = tmp_path / "out"
    assert "wait for review" not in grade(tmp_path / "class", out)
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "review", str(out)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0 and " ".join(run.stderr.split()) == \
        f"Nothing to review in {out}: no quiz answer waits for a person."
    assert not (out / REVIEW_FILE).exists()


@pytest.mark.parametrize("via_make", [True, False])
def test_the_regrade_command_keeps_the_roster_and_due_date(tmp_path, monkeypatch, via_make):
    """Grading again to apply review decisions must not drop --roster or --due: canvas.csv's ids and the late
    marks would change without a word (found by a walk through the round trip)."""
    from autograder.commands import grade_command, record_source

    monkeypatch.setenv("ATTNKIT_VIA_MAKE", "1" if via_make else "0")
    out, roster = tmp_path / "out 1", tmp_path / "export.csv"
    (out / ".state").mkdir(parents=True)
    roster.write_text("Student,ID\n", encoding="utf-8")
    record_source(out, tmp_path / "class", roster, "2026-12-01T23:59 Europe/Rome")
    words = shlex.split(grade_command(out))
    if via_make:
        assert words[:2] == ["make", "grade"]
        assert f"ROSTER={roster}" in words and "DUE=2026-12-01T23:59 Europe/Rome" in words
    else:
        assert words[words.index("--roster") + 1] == str(roster)
        assert words[words.index("--due") + 1] == "2026-12-01T23:59 Europe/Rome"
    record_source(out, tmp_path / "class")  # graded again without them: the command says so too
    assert "--roster" not in grade_command(out) and "ROSTER" not in grade_command(out)

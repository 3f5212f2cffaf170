"""`bench/learn_bench.py` measures any labelled set by path: one set's review learned, another set graded before
and after, with its pending share, review time per waiting wording and answers scored against their labels."""
from __future__ import annotations

import re
import subprocess
import sys

import yaml

from autograder import paths


def test_a_labelled_set_written_elsewhere_is_measured_by_its_path(tmp_path):
    reviewed = tmp_path / "term1.yaml"
    reviewed.write_text(yaml.safe_dump({"sc-07": [
        {"score": 2, "kind": "paraphrase", "answer": "the scores get too big, so the softmax saturates"}]}),
        encoding="utf-8")
    graded = tmp_path / "term2.yaml"
    graded.write_text(yaml.safe_dump({
        "sc-07": [{"score": 2, "answer": "The scores get too big and so the softmax saturates."},
                  {"score": 0, "answer": "the loss goes to infinity"}],
        "zz-01": [{"score": 1, "answer": "a question no quiz has"}],
        "sc-01": [{"answer": "a row without a score"}]}), encoding="utf-8")
    run = subprocess.run([sys.executable, "bench/learn_bench.py", "--learn-from", str(reviewed),
                          "--grade", str(graded), "--only"], capture_output=True, text=True, cwd=paths.ROOT,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "term2.yaml: zz-01: no quiz has this question" in run.stderr
    assert "term2.yaml: sc-01: 1 row(s) without `answer` and `score`" in run.stderr
    line = next(l for l in run.stdout.splitlines() if l.startswith("term2.yaml:"))
    before, after = re.findall(r"(\d+) of (\d+) pending", line)
    assert int(before[0]) > int(after[0]) and before[1] == after[1] == "2", line  # the learned wording is read
    assert "against label: 0 <- graded next term" in line
    review = re.findall(r"review (before|after): +(\d+) groups \((\d+) split\) over (\d+) waiting wordings, "
                        r"[\d.]+ min, ([\d.]+) s per waiting wording", run.stdout)
    assert [r[0] for r in review] == ["before", "after"] and int(review[1][3]) == int(review[0][3]) - 1
    assert "groups/wordings per question: sc-07" in run.stdout
    assert "term1.yaml: before" in run.stdout and "heldout7" not in run.stdout  # --only: the named sets alone

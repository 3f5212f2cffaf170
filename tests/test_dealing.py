"""Students are dealt to whichever grading worker is free (runner._run_workers, worker.dealt)."""
from __future__ import annotations

import io
from contextlib import redirect_stdout

from hypothesis import given, strategies as st

from autograder.grading.runner import batch_size
from autograder.grading.submissions import Submission
from autograder.grading.worker import CHUNK, dealt


def deal_all(students: int, workers: int) -> list[int]:
    sizes, left = [], students
    while left:
        size = batch_size(left, workers)
        sizes.append(size)
        left -= size
    return sizes


@given(st.integers(1, 2000), st.integers(1, 16))
def test_batches_cover_the_class_never_exceed_a_session_and_end_with_single_students(students, workers):
    sizes = deal_all(students, workers)
    assert sum(sizes) == students
    assert all(1 <= size <= CHUNK for size in sizes)
    assert sizes == sorted(sizes, reverse=True)  # large first (few sessions), small last (no idle worker)
    assert sizes[-min(workers, len(sizes)):] == [1] * min(workers, len(sizes))  # the last deal of each: one student


@given(st.integers(1, 2000), st.integers(1, 16))
def test_every_worker_gets_a_first_batch_when_there_are_enough_students(students, workers):
    workers = min(workers, students)  # the runner starts no more workers than students
    assert len(deal_all(students, workers)) >= workers


def test_sessions_stay_few_for_a_large_class():
    assert len(deal_all(1000, 2)) <= 40  # about 2 workers x log(1000): not one session per student


def test_a_worker_grades_the_batches_it_is_dealt_and_says_ready_after_each():
    students = [Submission(f"s{i}", {}) for i in range(5)]
    stream = io.StringIO("3 1\n0\n\n4\n")  # an empty line ends the dealing, whatever follows
    printed = io.StringIO()
    with redirect_stdout(printed):
        batches = []
        for batch in dealt(students, stream):
            batches.append([s.student_id for s in batch])
            printed.write(f"graded {len(batches)}\n")
    assert batches == [["s3", "s1"], ["s0"]]
    assert printed.getvalue() == "graded 1\nready\ngraded 2\nready\n"  # ready only once a batch is graded


def test_a_worker_stops_at_the_end_of_its_input():
    students = [Submission("a", {})]
    with redirect_stdout(io.StringIO()):
        assert [len(b) for b in dealt(students, io.StringIO("0\n"))] == [1]

"""A few lines of plain text about the whole class, for the terminal after grading."""
from __future__ import annotations

from ..results import StudentResult
from ..sandbox.isolation import notice
from .class_stats import (diagnosed_mistakes, hardest_tests, score_overview, test_stats, undiagnosed_failures,
                          weak_isolation)


def plain_summary(results: list[StudentResult]) -> str:
    overview = score_overview(results)
    if not results:
        return "Class summary: no students were graded.\n"
    top = overview["max_score"]
    lines = [
        f"Class summary: {overview['students']} students, mean {overview['mean']:.1f} / {top:g}, "
        f"median {overview['median']:g}, full marks {overview['full_marks']}, "
        f"every code test passed {overview['passed_every_test']}",
    ]
    hardest = hardest_tests(test_stats(results))
    if hardest:
        lines.append("Hardest tests (share of students passing):")
        lines += [f"  {s.pass_rate:4.0%}  {s.test_id}: {s.name}" for s in hardest]
    named = diagnosed_mistakes(results)
    mistakes = [m for m in named if m.made][:3]
    if mistakes:
        lines.append("Most common diagnosed mistakes (students who made them):")
        lines += [f"  {len(m.made)} student{'s' if len(m.made) != 1 else ''}  {m.title} [{m.mistake}]"
                  for m in mistakes]
    elif named:
        lines.append(f"Diagnosed mistakes: none proven; {len(named)} named only together with another (see the report)")
    else:
        lines.append("Diagnosed mistakes: no failed check named a mistake")
    undiagnosed = undiagnosed_failures(results)
    if undiagnosed:
        students = {student for entry in undiagnosed for student, _ in entry.students}
        lines.append(f"Failed for no diagnosed reason: {sum(len(e.students) for e in undiagnosed)} failure(s) of "
                     f"{len(undiagnosed)} check(s), {len(students)} student(s); listed in the report")
    lines.append(f"Ungradable submissions: {overview['ungradable']} student(s) with files that could not be graded")
    lines.append(f"Grader problems (not the students' fault): {overview['grader_problems']} check(s)")
    for mode, students in weak_isolation(results).items():
        lines.append(f"{len(students)} student(s) graded with isolation '{mode}'. {notice(mode)}")
    return "\n".join(lines) + "\n"

"""`make release` packs what students get and nothing they must not see."""
from __future__ import annotations

import zipfile

from autograder import paths
from autograder.authoring.release import build_release
from tests.test_generated import solution_lines


def test_release_has_the_handout_and_no_solution_or_hidden_test(tmp_path):
    archive = build_release(tmp_path / "student.zip")
    with zipfile.ZipFile(archive) as packed:
        contents = {name: packed.read(name).decode("utf-8") for name in packed.namelist()}
    for name in paths.ASSIGNMENTS:
        for suffix in (f"{name}/{name}.ipynb", f"{name}/{name}.py", f"{name}/tests/"):
            assert any(n.startswith(f"attention-kit/{suffix}") for n in contents), suffix
        secret = solution_lines(name)
        for file, text in contents.items():  # quizzes quote the lesson's own code, which is no secret
            if "/quizzes/" not in file:
                assert not [line for line in secret if line in text], f"{file} holds solution code"
    for file, text in contents.items():
        assert "pytest.mark.points" not in text and "hidden=True" not in text, f"{file} holds a hidden test"
        assert "solutions/" not in file and "graders" not in file


def test_release_has_quizzes_without_answers(tmp_path):
    from autograder.quiz import load_quizzes

    with zipfile.ZipFile(build_release(tmp_path / "student.zip")) as packed:
        contents = {name: packed.read(name).decode("utf-8") for name in packed.namelist()}
    text = "\n".join(t for n, t in contents.items() if "/quizzes/" in n)
    for quiz in load_quizzes(paths.QUIZZES_DIR).values():
        assert f"attention-kit/quizzes/quiz_{quiz.id}.yaml" in contents, "answer-file template"
        for question in quiz.questions:
            assert question.id in text and question.prompt.split("\n")[0][:40] in text
            assert question.explanation.strip()[:60] not in text, f"{question.id}: explanation leaked"
            shown = question.prompt + " ".join(o.text for o in question.options)
            for accepted in (a for a in question.accepted if a not in shown):
                assert accepted not in text, f"{question.id}: accepted answer {accepted!r} leaked"


def test_release_is_reproducible(tmp_path):
    first = build_release(tmp_path / "a.zip").read_bytes()
    assert build_release(tmp_path / "b.zip").read_bytes() == first

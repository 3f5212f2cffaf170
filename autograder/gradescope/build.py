"""`make gradescope`: pack the engine, hidden graders, reference and pinned requirements into a zip
laid out as Gradescope expects (setup.sh and run_autograder at the top, the kit in source/)."""
from __future__ import annotations

import zipfile
from pathlib import Path

from .. import paths

FILES = Path(__file__).resolve().parent / "files"
FIXED_TIME = (2024, 1, 1, 0, 0, 0)


def kit_files() -> dict[str, Path]:
    """What run_autograder needs: the engine, the graders, the reference, the handout (to recognise
    untouched files) and the quizzes; never the student demo class or the kit's own tests."""
    chosen = {}
    for path in sorted((paths.ROOT / "autograder").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            chosen[f"source/{path.relative_to(paths.ROOT).as_posix()}"] = path
    for name in paths.ASSIGNMENTS:
        chosen[f"source/solutions/{name}/{name}.py"] = paths.SOLUTIONS_DIR / name / f"{name}.py"
        for path in sorted((paths.ASSIGNMENTS_DIR / name).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith("."):
                chosen[f"source/{path.relative_to(paths.ROOT).as_posix()}"] = path
    for path in sorted(paths.QUIZZES_DIR.glob("*.yaml")):
        chosen[f"source/quizzes/{path.name}"] = path
    for name in ("requirements.txt", "pyproject.toml"):
        chosen[f"source/{name}"] = paths.ROOT / name
    chosen["setup.sh"] = FILES / "setup.sh"
    chosen["run_autograder"] = FILES / "run_autograder"
    return chosen


def build_zip(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in kit_files().items():
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
            archive.writestr(info, path.read_bytes())
    temporary.replace(target)
    return target

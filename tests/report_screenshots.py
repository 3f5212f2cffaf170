"""Screenshots of class reports in headless Chromium, to read a report the way an instructor sees it.

    python -m tests.report_screenshots [--out DIR] [REPORT.html ...]

With no report named, it renders the in-memory classes of tests/report_classes.py and takes the demo class's
out/demo/report.html if `make grade` made one. For each report it writes DIR/<name>.png (the whole page,
blank bottom trimmed) and DIR/<name>-<k>.png (pages of 2400 px, easy to read one by one).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder import paths

WIDTH, PAGE, TALLEST = 1280, 2400, 16000
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
         "--force-device-scale-factor=1"]


def chromium() -> str | None:
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


def screenshot(report: Path, png: Path, height: int = PAGE, width: int = WIDTH, timeout: float = 180) -> Path:
    """One screenshot of the top `height` pixels, in a fresh profile that is removed afterwards."""
    browser = chromium()
    if browser is None:
        raise RuntimeError("no chromium on this machine (apt-get install chromium)")
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="report-shot-") as profile:
        run = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
                              f"--window-size={width},{height}", report.resolve().as_uri()],
                             capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0 or not png.exists():
        raise RuntimeError(f"chromium failed ({run.returncode}): {run.stderr[-2000:]}")
    return png


def whole_page(report: Path, out_dir: Path, name: str) -> list[Path]:
    """The page down to its last non-white pixel, then the same cut into PAGE-high pieces."""
    from PIL import Image, ImageChops

    for stale in out_dir.glob(f"{name}-*.png"):
        stale.unlink()
    full = screenshot(report, out_dir / f"{name}.png", TALLEST)
    with Image.open(full) as image:
        page = image.convert("RGB")
    box = ImageChops.difference(page, Image.new("RGB", page.size, (255, 255, 255))).getbbox()
    page = page.crop((0, 0, WIDTH, min(page.height, (box[3] if box else 0) + 40)))
    page.save(full)
    pieces = []
    for k, top in enumerate(range(0, page.height, PAGE)):
        piece = out_dir / f"{name}-{k + 1}.png"
        page.crop((0, top, WIDTH, min(page.height, top + PAGE))).save(piece)
        pieces.append(piece)
    return [full, *pieces]


def synthetic_reports(out_dir: Path) -> list[Path]:
    """Reports of the in-memory classes: one with every cell state and diagnoses, one large enough for
    quiz item statistics."""
    from autograder.reporting.class_report import class_report_html
    from tests.report_classes import diagnosed_class, large_quiz_class

    reports = []
    for name, results in (("diagnosed-class", diagnosed_class()), ("large-class", large_quiz_class())):
        reports.append(out_dir / f"{name}.html")
        reports[-1].write_text(class_report_html(results), encoding="utf-8")
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=paths.ROOT / "out" / "screenshots")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    reports = args.reports or synthetic_reports(args.out) + [
        p for p in [paths.ROOT / "out" / "demo" / "report.html"] if p.exists()]
    for report in reports:
        name = "demo" if report.parent.name == "demo" else report.stem
        for png in whole_page(report, args.out, name):
            print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The adversarial corpus (tests/adversarial/), graded through the real engine in both isolation modes.

One class per mode holds every attacker, every (deduplicated) honest twin and two ordinary honest
students; each class is graded ONCE with grade(..., workers=2), with the real default limits
(call 10 s, load 20 s, 90 s per file), and the two modes run side by side. Then, per attack:

- test_attack_is_contained: the attacker scores no more than its twin on any test, never prints
  ATTNKIT-LEAK (it reached its goal), and left the evidence that it really ran. Known gaps are
  xfail(strict=True) per mode (module attribute XFAIL).
- test_attack_left_no_trace (never xfail): no process it started survives grading; no file it
  made exists outside OUT; every submission folder is byte for byte unchanged; its result file is
  exactly what the parent wrote; no test of it ended as a grader error; nothing was unpickled; no
  network listener of the test heard from it.
and per mode: the honest students get full marks, test by test; OUT holds nothing but the files
the engine writes. tests/adversarial/README.md tables which attack holds in which mode.

The whole file takes about 1-1.5 min: the four hanging attacks cost their timeouts (10-20 s each),
spread over the two workers of each mode.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading.results import GRADER_ERROR, PASSED, StudentResult
from autograder.grading.submissions import discover, result_stem
from autograder.sandbox.server import bwrap_works
from tests import adversarial
from tests.classroom import grade, solution_text, write_class

BWRAP_OK, BWRAP_WHY = bwrap_works()
# Without bubblewrap (macOS, locked-down containers) only the fallback can be tested here; CI installs it.
MODES = ("bwrap", "rlimits") if BWRAP_OK else ("rlimits",)
ATTACKS = adversarial.modules()
if os.environ.get("ATTNKIT_ADVERSARIAL_ONLY"):  # for working on a few attacks: comma-separated names
    ATTACKS = [m for m in ATTACKS if m.__name__.rsplit(".", 1)[1] in os.environ["ATTNKIT_ADVERSARIAL_ONLY"].split(",")]
HONEST = ("honest-1", "honest-2")
GRADING_TIMEOUT = 480  # seconds: far above the expected ~1-2 min; reaching it means the grader hung
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
NOBODY = 65534


def attacker_id(module) -> str:
    return f"atk-{module.__name__.rsplit('.', 1)[1]}"


def short(module) -> str:
    return module.__name__.rsplit(".", 1)[1]


# ------------------------------------------------------------------------------------------------
# the world around the grading run: a listener, a bystander, scans of processes and files

class Listener:
    """TCP and UDP on one loopback port; records whatever arrives."""

    def __init__(self) -> None:
        self.heard: list[bytes] = []
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(16)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.stopped = False
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.heard.append(b"tcp connection " + conn.recv(200))
            except OSError:
                self.heard.append(b"tcp connection")
            conn.close()

    def _receive(self) -> None:
        while not self.stopped:
            try:
                self.heard.append(b"udp " + self.udp.recv(200))
            except OSError:
                return

    def close(self) -> None:
        self.stopped = True
        self.tcp.close()
        self.udp.close()


def processes() -> list[tuple[int, str, str]]:
    """(pid, comm, cmdline) of every process on the machine, read from /proc (no psutil)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found.append((int(entry), comm, cmdline))
    return found


def files_named(marker: str, roots: list[tuple[Path, int]]) -> list[str]:
    """Paths whose name holds the marker, under each root down to its depth."""
    hits = []

    def walk(folder: Path, level: int) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if marker in entry.name:
                hits.append(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and level < depth and entry.name not in (".git", ".venv", "node_modules"):
                walk(Path(entry.path), level + 1)

    for root, depth in roots:
        walk(root, 0)
    return hits


def tree_digest(folder: Path) -> dict[str, str]:
    digest = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            digest[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            digest[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            digest[rel] = "dir"
    return digest


# ------------------------------------------------------------------------------------------------
# one grading run per mode

@dataclass
class Run:
    mode: str
    root: Path
    out: Path
    twin_of: dict[str, str]                  # attack name -> twin student id
    ids: list[str]
    before: dict[str, dict[str, str]]        # student id -> file digests before grading
    listener: Listener
    canary: Path
    results: dict[str, StudentResult] = field(default_factory=dict)
    after: dict[str, dict[str, str]] = field(default_factory=dict)
    seconds: float = 0.0
    error: BaseException | None = None

    @property
    def classdir(self) -> Path:
        return self.root / "class"


def build_class(base: Path, mode: str, listener: Listener) -> Run:
    root = base / mode
    out = root / "out"
    canary = root / "canary-unpickled"
    classdir = root / "class"
    students: dict[str, dict[str, str | bytes]] = {
        HONEST[0]: {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        HONEST[1]: {f"{a}.ipynb": (paths.SOLUTIONS_DIR / a / f"{a}.ipynb").read_bytes() for a in paths.ASSIGNMENTS},
    }
    twins: dict[tuple[str, str], str] = {}
    twin_of = {}
    for module in ATTACKS:
        key = (module.ASSIGNMENT, module.TWIN)
        if key not in twins:
            twins[key] = f"twin-{short(module)}"
            students[twins[key]] = {f"{module.ASSIGNMENT}.py": module.TWIN}
        twin_of[short(module)] = twins[key]
        own = attacker_id(module)
        values = {"__CLASS_DIR__": str(classdir), "__SELF_DIR__": str(classdir / own), "__OUT_DIR__": str(out),
                  "__KIT_DIR__": str(paths.ROOT), "__PORT__": str(listener.port), "__CANARY__": str(canary),
                  "__OWN_ID__": own, "__VICTIMS__": repr(list(HONEST)), "__GRADER_UID__": str(os.getuid()),
                  "__MARK__": adversarial.mark(module, mode)}
        students[own] = {f"{module.ASSIGNMENT}.py": adversarial.render(module.CODE, values)}
    write_class(classdir, students)
    before = {sid: tree_digest(classdir / sid) for sid in students}
    return Run(mode, root, out, twin_of, sorted(students), before, listener, canary)


def grade_run(run: Run) -> Run:
    start = time.monotonic()
    try:
        run.results = grade(run.classdir, run.out, workers=2, isolation=run.mode)
    except BaseException as exc:  # noqa: BLE001 - reported by every test of the mode
        run.error = exc
    run.seconds = time.monotonic() - start
    run.after = {sid: tree_digest(run.classdir / sid) for sid in run.ids if (run.classdir / sid).exists()}
    return run


@dataclass
class Corpus:
    runs: dict[str, Run]
    processes: list[tuple[int, str, str]]
    files: dict[str, list[str]]     # marker -> paths found
    generic_files: list[str]        # forged results.json in well-known places, newer than the run


@pytest.fixture(scope="session")
def corpus():
    base = Path(tempfile.mkdtemp(prefix="attnkit-adversarial-"))
    base.chmod(0o755)  # a class folder as it usually is: readable by other users (see read_classmates)
    bystander = subprocess.Popen(["sleep", "900"], user=NOBODY, group=NOBODY, start_new_session=True)
    listeners = {mode: Listener() for mode in MODES}
    started = time.time()
    try:
        runs = {mode: build_class(base, mode, listeners[mode]) for mode in MODES}
        with concurrent.futures.ThreadPoolExecutor(len(MODES)) as pool:
            futures = [pool.submit(grade_run, run) for run in runs.values()]
            done, pending = concurrent.futures.wait(futures, timeout=GRADING_TIMEOUT)
        if pending:
            pytest.fail(f"grading did not finish within {GRADING_TIMEOUT} s: the sandbox let the grader hang")
        time.sleep(0.5)  # let anything that would outlive the workers show itself
        markers = [adversarial.mark(m, mode) for m in ATTACKS for mode in MODES]
        roots = [(Path(p), 3) for p in SCRATCH] + [(base, 8), (paths.ROOT, 3), (Path("/"), 0), (Path.home(), 1)]
        files = {marker: files_named(marker, roots) for marker in markers}
        generic = [p for p in ("/results.json", "/tmp/results.json", "/autograder/results/results.json",
                               str(paths.ROOT / "results.json"), str(Path.home() / "results.json"),
                               str(base / "results.json"))
                   if os.path.exists(p) and os.path.getmtime(p) >= started]
        yield Corpus(runs, processes(), files, generic)
    finally:
        for listener in listeners.values():
            listener.close()
        bystander.kill()
        bystander.wait()
        shutil.rmtree(base, ignore_errors=True)


def run_of(corpus: Corpus, mode: str) -> Run:
    run = corpus.runs[mode]
    if run.error is not None:
        pytest.fail(f"grading the adversarial class with isolation={mode} failed: {run.error!r}")
    return run


def everything_said(result: StudentResult) -> str:
    return "\n".join([result.printed, *result.notes, *result.problems, *(t.output for t in result.tests)])


def attack_params(test_kind: str):
    params = []
    for mode in MODES:
        for module in ATTACKS:
            marks = ()
            reason = getattr(module, "XFAIL", {}).get(mode)
            if test_kind == "contained" and reason:
                marks = (pytest.mark.xfail(strict=True, reason=reason),)
            params.append(pytest.param(mode, module, marks=marks, id=f"{mode}-{short(module)}"))
    return params


# ------------------------------------------------------------------------------------------------
# per attack

@pytest.mark.parametrize("mode, module", attack_params("contained"))
def test_attack_is_contained(corpus, mode, module):
    """The attacker gains nothing over its honest twin, and really ran."""
    run = run_of(corpus, mode)
    attacker = run.results[attacker_id(module)]
    twin = run.results[run.twin_of[short(module)]]
    twin_scores = {t.test_id: t.score for t in twin.tests}
    gained = {t.test_id: (t.score, twin_scores.get(t.test_id)) for t in attacker.tests
              if t.score > twin_scores.get(t.test_id, 0.0)}
    said = everything_said(attacker)
    assert adversarial.LEAK not in said, f"{module.ATTACK}: reached its goal:\n" + "\n".join(
        line for line in said.splitlines() if adversarial.LEAK in line)
    assert not gained, f"{module.ATTACK}: scored more than its honest twin on {gained}"
    assert attacker.score <= twin.score
    if getattr(module, "SAME_SCORE", False):
        assert attacker.score == twin.score, (f"{module.ATTACK}: the correct code under the attack lost points "
                                              f"({attacker.score} vs {twin.score}): {failures(attacker)}")
    evidence = getattr(module, "EVIDENCE", None)
    if evidence:
        assert evidence in said, f"no sign that the attack ran as designed (expected {evidence!r}):\n{said[:3000]}"


def failures(result: StudentResult) -> list[str]:
    return [f"{t.test_id}: {t.output[:300]}" for t in result.tests if t.status != PASSED]


@pytest.mark.parametrize("mode, module", attack_params("trace"))
def test_attack_left_no_trace(corpus, mode, module):
    """No surviving process, no file outside OUT, no changed submission, no forged result."""
    run = run_of(corpus, mode)
    marker = adversarial.mark(module, mode)
    alive = [p for p in corpus.processes if marker in p[1] or marker in p[2]]
    assert not alive, f"processes started by {short(module)} survived grading: {alive}"
    assert not corpus.files[marker], f"{short(module)} left files behind: {corpus.files[marker]}"
    own = attacker_id(module)
    assert run.after.get(own) == run.before[own], f"{own}'s own folder changed"
    changed = [sid for sid in run.ids if run.after.get(sid) != run.before[sid]]
    assert not changed, f"submission folders changed during grading: {changed}"
    attacker = run.results[own]
    assert not [t.test_id for t in attacker.tests if t.status == GRADER_ERROR], \
        f"{short(module)} turned tests into grader errors: {[t.grader_detail[-500:] for t in attacker.grader_errors]}"
    check_state_file(run, own)
    heard = [h for h in run.listener.heard if marker.encode() in h or h.startswith(b"tcp connection")]
    assert not heard, f"the test's network listener heard from the sandbox: {heard}"
    assert not run.canary.exists(), "the parent unpickled something a child sent"


# ------------------------------------------------------------------------------------------------
# per mode

@pytest.mark.parametrize("mode", MODES)
def test_honest_students_intact(corpus, mode):
    run = run_of(corpus, mode)
    for sid in HONEST:
        result = run.results[sid]
        assert result.isolation == mode
        assert not result.problems, result.problems
        assert [t.test_id for t in result.tests if t.status != PASSED] == [], failures(result)
        assert all(t.score == t.max_score for t in result.tests)
        assert len(result.tests) > 20  # both assignments' hidden tests ran (quizzes are not part of this corpus)


@pytest.mark.parametrize("mode", MODES)
def test_twins_are_what_they_claim(corpus, mode):
    """The honest twins grade as expected, so comparing against them means something."""
    run = run_of(corpus, mode)
    for module in ATTACKS:
        twin = run.results[run.twin_of[short(module)]]
        own = [t for t in twin.tests if t.assignment == module.ASSIGNMENT]
        if module.TWIN == solution_text(module.ASSIGNMENT):
            assert all(t.status == PASSED for t in own), (short(module), failures(twin))
        assert not twin.grader_errors


@pytest.mark.parametrize("mode", MODES)
def test_out_holds_only_what_the_parent_wrote(corpus, mode):
    run = run_of(corpus, mode)
    expected = {f".state/{result_stem(sid)}.json" for sid in run.ids}
    present = {p.relative_to(run.out).as_posix() for p in run.out.rglob("*") if p.is_file()}
    logs = {p for p in present if p.startswith("logs/worker-") and p.endswith(".log")}
    assert present - logs == expected, f"unexpected files in OUT: {sorted(present - logs - expected)}"
    for sid in run.ids:
        check_state_file(run, sid)
    assert not corpus.generic_files, f"forged results files appeared: {corpus.generic_files}"


def check_state_file(run: Run, sid: str) -> None:
    """The raw JSON is the parent's: right id, mode, fingerprint and test list; no forged fields."""
    data = json.loads((run.out / ".state" / f"{result_stem(sid)}.json").read_text(encoding="utf-8"))
    honest = run.results[HONEST[0]]
    assert data["student_id"] == sid
    assert data["isolation"] == run.mode
    assert set(data) == set(honest.to_dict()), f"fields of {sid}'s result differ: {sorted(set(data))}"
    assert [t["test_id"] for t in data["tests"]] == [t.test_id for t in honest.tests]
    assert [t["max_score"] for t in data["tests"]] == [t.max_score for t in honest.tests]
    assert all(0 <= t["score"] <= t["max_score"] for t in data["tests"])
    assert len(data["printed"]) <= 16_384
    assert "xevil" not in data["fingerprint"]
    submission = {s.student_id: s for s in discover(run.classdir, list(paths.ASSIGNMENTS), {})}[sid]
    assert data["fingerprint"].endswith("-" + submission.fingerprint), f"{sid}'s result has a foreign fingerprint"
    assert data["fingerprint"].split("-")[0] == honest.fingerprint.split("-")[0]


def test_both_modes_finished(corpus):
    """Wall time of each mode's grading (they ran side by side), and the slowest students."""
    for mode in MODES:
        run = run_of(corpus, mode)
        print(f"{mode}: {len(run.ids)} students graded in {run.seconds:.1f} s")
        finished = {sid: (run.out / ".state" / f"{result_stem(sid)}.json").stat().st_mtime for sid in run.ids}
        spent = {}
        for shard in range(2):  # the runner deals sorted students round robin to the workers
            members = sorted(run.ids)[shard::2]
            times = sorted(finished[sid] for sid in members)
            for sid in members:
                earlier = [t for t in times if t < finished[sid]]
                spent[sid] = finished[sid] - (earlier[-1] if earlier else min(finished.values()))
        slowest = sorted(spent.items(), key=lambda item: -item[1])[:8]
        print("  slowest:", ", ".join(f"{sid} {seconds:.1f} s" for sid, seconds in slowest))
        if os.environ.get("ATTNKIT_TIMELINE"):
            first = min(finished.values())
            for sid in sorted(finished, key=finished.get):
                print(f"    {finished[sid] - first:6.1f} shard {sorted(run.ids).index(sid) % 2} {sid}")
        assert run.seconds < GRADING_TIMEOUT


@pytest.mark.skipif(BWRAP_OK, reason="bubblewrap works here")
def test_bubblewrap_is_missing_so_only_the_fallback_was_tested():
    pytest.skip(f"the bwrap half of the corpus did not run: {BWRAP_WHY}")

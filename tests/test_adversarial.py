"""The adversarial corpus (tests/adversarial/), graded through the real engine in every setting.

The settings (tests/settings.py, docs/isolation.md): bubblewrap as root and as a normal user, and
no namespaces (bubblewrap hidden: Landlock, seccomp) as root and as a normal user. One class per
setting holds every attacker, every (deduplicated) honest twin and two ordinary honest students;
each class is graded ONCE, in a subprocess running as the setting's user, with workers=2, and the
settings run side by side. The time and memory limits are the real ones scaled down (LIMITS: 1 s of
CPU per call and 0.02 s more per call of a round trip of several, 6 s per load and 1 GiB, instead of
10 s, 0.1 s, 20 s and 3 GiB), because the hanging attacks cost exactly their limit in every setting
(the reference solution gets full marks with 0.02 s and 0.001 s), and touching 3 GiB costs the memory
bomb seconds of CPU on a busy machine; every other limit is the default. Then, per attack and setting:

- test_attack_is_contained: the attacker scores no more than its twin on any test, never prints
  ATTNKIT-LEAK (it reached its goal), and left the evidence that it really ran. Known gaps are
  xfail(strict=True) (module attribute XFAIL, by setting name or mode).
- test_attack_left_no_trace (never xfail): no process it started survives grading; no file it
  made exists outside OUT; every submission folder is byte for byte unchanged; its result file is
  exactly what the parent wrote; no test of it ended as a grader error; nothing was unpickled; no
  network listener of the test heard from it.
and per setting: the honest students get full marks, test by test; OUT holds nothing but the files
the engine writes. tests/adversarial/README.md tables which attack holds where.

Time limits count CPU time, so the settings running side by side (and any other load) do not
change a verdict; they only make the whole take longer.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder import paths
from autograder.results import GRADER_ERROR, PASSED, StudentResult, load
from autograder.grading.submissions import discover, result_stem
from tests import adversarial
from tests.classroom import solution_text, write_class
from tests.settings import ROOT, SETTINGS, USER_UID, Setting, grade_in, python_and_kit, unavailable, workspace

AVAILABLE = [s for s in SETTINGS if unavailable(s) is None]
ATTACKS = adversarial.modules()
if os.environ.get("ATTNKIT_ADVERSARIAL_ONLY"):  # for working on a few attacks: comma-separated names
    ATTACKS = [m for m in ATTACKS if m.__name__.rsplit(".", 1)[1] in os.environ["ATTNKIT_ADVERSARIAL_ONLY"].split(",")]
HONEST = ("honest-1", "honest-2")
GRADING_TIMEOUT = 3600  # seconds: a backstop far above the few minutes it takes even on a busy machine
LIMITS = '{"call_seconds": 1, "sequence_call_seconds": 0.02, "load_seconds": 6, "memory_bytes": 1073741824}'
SECRET = f"attnkit-secret-{os.getpid()}-{int(time.time())}"  # only in the grading processes' environment
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


def ipc_objects() -> set[str]:
    """Every System V IPC object on the host (what `ipcs` lists), and every POSIX message queue."""
    found = set()
    for kind in ("shm", "msg", "sem"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found.update(f"{kind} " + " ".join(line.split()[:2]) for line in lines)
    try:
        found.update(f"mqueue {name}" for name in os.listdir("/dev/mqueue"))
    except OSError:
        pass
    return found | student_cgroups()


def student_cgroups() -> set[str]:
    """The kit's per-student cgroups (autograder/sandbox/cgroups.py) on the host, in every hierarchy, whose
    maker is gone (a live one belongs to a grading still running: another run of the kit on this host)."""
    from autograder.sandbox import cgroups

    hierarchy = cgroups.detect(wanted="auto")
    bases = set(hierarchy.bases.values()) if hierarchy else set()
    found = set()
    for base in bases:
        for entry in os.scandir(base):
            match = cgroups.NAME.match(entry.name)
            if match and entry.is_dir() and not Path(f"/proc/{match.group(1)}").exists():
                found.add(f"cgroup {entry.path}")
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
    setting: Setting
    root: Path
    out: Path
    twin_of: dict[str, str]                  # attack name -> twin student id
    ids: list[str]
    before: dict[str, dict[str, str]]        # student id -> file digests before grading
    listener: Listener
    canary: Path
    kit: Path                                # the kit the grading process runs from
    results: dict[str, StudentResult] = field(default_factory=dict)
    after: dict[str, dict[str, str]] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    @property
    def mode(self) -> str:
        return self.setting.mode

    @property
    def classdir(self) -> Path:
        return self.root / "class"


def build_class(setting: Setting, listener: Listener, bystander: int) -> Run:
    root = workspace(setting)
    out = root / "out"
    canary = root / "canary-unpickled"
    classdir = root / "class"
    kit = Path(python_and_kit(setting)[1])
    grader_uid = USER_UID if setting.user and ROOT else os.getuid()
    grader_home = "/tmp" if setting.user and ROOT else str(Path.home())
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
                  "__KIT_DIR__": str(kit), "__PORT__": str(listener.port), "__CANARY__": str(canary),
                  "__OWN_ID__": own, "__VICTIMS__": repr(list(HONEST)), "__GRADER_UID__": str(grader_uid),
                  "__GRADER_HOME__": grader_home, "__BYSTANDER__": str(bystander), "__SECRET__": SECRET,
                  "__MARK__": adversarial.mark(module, setting.code)}
        students[own] = {f"{module.ASSIGNMENT}.py": adversarial.render(module.CODE, values)}
    write_class(classdir, students)
    for path in [classdir, *classdir.rglob("*")]:  # as class folders usually are: readable by everyone
        path.chmod(0o755 if path.is_dir() else 0o644)
    before = {sid: tree_digest(classdir / sid) for sid in students}
    return Run(setting, root, out, twin_of, sorted(students), before, listener, canary, kit)


def grade_run(run: Run) -> Run:
    start = time.monotonic()
    try:
        # the repair search as users get it (tests/conftest.py switches it off elsewhere): attackers' edited code runs
        # in the same sandbox, and what hangs or crashes is not searched (docs/diagnosis.md)
        done = grade_in(run.setting, run.classdir, run.out, workers=2, extra_env={"ATTNKIT_TEST_SECRET": SECRET,
                                                                            "ATTNKIT_SANDBOX_LIMITS": LIMITS,
                                                                            "ATTNKIT_REPAIR": "unnamed"},
                        timeout=GRADING_TIMEOUT)
        if done.returncode != 0:
            run.error = f"exit {done.returncode}: {done.stderr[-3000:]}"
        else:
            run.results = {sid: load(run.out / ".state" / f"{result_stem(sid)}.json") for sid in run.ids}
    except BaseException as exc:  # noqa: BLE001 - reported by every test of the setting
        run.error = repr(exc)
    run.seconds = time.monotonic() - start
    run.after = {sid: tree_digest(run.classdir / sid) for sid in run.ids if (run.classdir / sid).exists()}
    return run


@dataclass
class Corpus:
    runs: dict[str, Run]
    processes: list[tuple[int, str, str]]
    files: dict[str, list[str]]     # marker -> paths found
    generic_files: list[str]        # forged results.json in well-known places, newer than the run
    new_ipc: set[str]               # System V IPC objects and message queues that appeared during grading


@pytest.fixture(scope="session")
def corpus():
    bystander = subprocess.Popen(["sleep", "900"], user=NOBODY, group=NOBODY, start_new_session=True) if ROOT \
        else subprocess.Popen(["sleep", "900"], start_new_session=True)
    listeners = {s.name: Listener() for s in AVAILABLE}
    started = time.time()
    ipc_before = ipc_objects()
    runs: dict[str, Run] = {}
    try:
        runs = {s.name: build_class(s, listeners[s.name], bystander.pid) for s in AVAILABLE}
        with concurrent.futures.ThreadPoolExecutor(max(1, len(runs))) as pool:
            futures = [pool.submit(grade_run, run) for run in runs.values()]
            done, pending = concurrent.futures.wait(futures, timeout=GRADING_TIMEOUT + 60)
        if pending:
            pytest.fail(f"grading did not finish within {GRADING_TIMEOUT} s: the sandbox let the grader hang")
        time.sleep(0.5)  # let anything that would outlive the workers show itself
        markers = [adversarial.mark(m, s.code) for m in ATTACKS for s in AVAILABLE]
        roots = [(Path(p), 3) for p in SCRATCH] + [(run.root, 8) for run in runs.values()]
        roots += [(paths.ROOT, 3), (Path("/"), 0), (Path.home(), 1)]
        roots += [(run.kit, 3) for run in runs.values() if run.kit != paths.ROOT]
        files = {marker: files_named(marker, roots) for marker in markers}
        generic = [p for p in ("/results.json", "/tmp/results.json", "/autograder/results/results.json",
                               str(paths.ROOT / "results.json"), str(Path.home() / "results.json"),
                               *(str(run.root / "results.json") for run in runs.values()))
                   if os.path.exists(p) and os.path.getmtime(p) >= started]
        yield Corpus(runs, processes(), files, generic, ipc_objects() - ipc_before)
    finally:
        for listener in listeners.values():
            listener.close()
        bystander.kill()
        bystander.wait()
        for run in runs.values():
            shutil.rmtree(run.root, ignore_errors=True)


def run_of(corpus: Corpus, name: str) -> Run:
    run = corpus.runs[name]
    if run.error is not None:
        pytest.fail(f"grading the adversarial class in the {name} setting failed: {run.error}")
    return run


def everything_said(result: StudentResult) -> str:
    return "\n".join([result.printed, *result.notes, *result.problems, *(t.output for t in result.tests)])


def attack_params(test_kind: str):
    params = []
    for setting in AVAILABLE:
        for module in ATTACKS:
            marks = ()
            known = getattr(module, "XFAIL", {})
            reason = known.get(setting.name) or known.get(setting.mode)
            if test_kind == "contained" and reason:
                marks = (pytest.mark.xfail(strict=True, reason=reason),)
            params.append(pytest.param(setting.name, module, marks=marks, id=f"{setting.name}-{short(module)}"))
    return params


SETTING_PARAMS = [pytest.param(s.name, id=s.name) for s in AVAILABLE]


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
    marker = adversarial.mark(module, run.setting.code)
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

@pytest.mark.parametrize("mode", SETTING_PARAMS)
def test_honest_students_intact(corpus, mode):
    run = run_of(corpus, mode)
    for sid in HONEST:
        result = run.results[sid]
        assert result.isolation == run.mode
        assert not result.problems, result.problems
        assert [t.test_id for t in result.tests if t.status != PASSED] == [], failures(result)
        assert all(t.score == t.max_score for t in result.tests)
        assert len(result.tests) > 20  # both assignments' hidden tests ran (quizzes are not part of this corpus)


@pytest.mark.parametrize("mode", SETTING_PARAMS)
def test_twins_are_what_they_claim(corpus, mode):
    """The honest twins grade as expected, so comparing against them means something."""
    run = run_of(corpus, mode)
    for module in ATTACKS:
        twin = run.results[run.twin_of[short(module)]]
        own = [t for t in twin.tests if t.assignment == module.ASSIGNMENT]
        if module.TWIN == solution_text(module.ASSIGNMENT):
            assert all(t.status == PASSED for t in own), (short(module), failures(twin))
        assert not twin.grader_errors


@pytest.mark.parametrize("mode", SETTING_PARAMS)
def test_out_holds_only_what_the_parent_wrote(corpus, mode):
    run = run_of(corpus, mode)
    expected = {f".state/{result_stem(sid)}.json" for sid in run.ids}
    present = {p.relative_to(run.out).as_posix() for p in run.out.rglob("*") if p.is_file()}
    logs = {p for p in present if p.startswith("logs/worker-") and p.endswith(".log")}
    assert present - logs == expected, f"unexpected files in OUT: {sorted(present - logs - expected)}"
    for sid in run.ids:
        check_state_file(run, sid)
    assert not corpus.generic_files, f"forged results files appeared: {corpus.generic_files}"


def test_no_ipc_object_outlives_grading(corpus):
    """No System V shared memory, message queue or semaphore set, no POSIX message queue and no per-student
    cgroup left on the host (checked once for all settings: they ran side by side)."""
    assert not corpus.new_ipc, f"IPC objects appeared on the host during grading: {sorted(corpus.new_ipc)}"


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


def test_every_setting_finished(corpus):
    """Wall time of each setting's grading (they ran side by side), the slowest students, and the footprint each
    metadata attack measured."""
    for setting in AVAILABLE:
        run = run_of(corpus, setting.name)
        print(f"{setting.name}: {len(run.ids)} students graded in {run.seconds:.1f} s")
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
        for module in ATTACKS:  # what each metadata attack could take (tests/adversarial/README.md)
            said = [line for line in everything_said(run.results[attacker_id(module)]).splitlines()
                    if line.startswith("footprint:")]
            if said:
                print(f"  {short(module)}: {said[0]}")
        if os.environ.get("ATTNKIT_TIMELINE"):
            first = min(finished.values())
            for sid in sorted(finished, key=finished.get):
                print(f"    {finished[sid] - first:6.1f} shard {sorted(run.ids).index(sid) % 2} {sid}")
        assert run.seconds < GRADING_TIMEOUT


@pytest.mark.parametrize("setting", [pytest.param(s, id=s.name) for s in SETTINGS if unavailable(s)])
def test_settings_this_machine_cannot_test(setting):
    pytest.skip(f"the {setting.name} setting did not run here: {unavailable(setting)}")


@pytest.mark.parametrize("mode", SETTING_PARAMS)
def test_student_text_is_inert_in_every_output(corpus, mode, monkeypatch):
    """Whatever the attackers printed, raised or returned in this setting reaches every renderer inert: the
    feedback and Gradescope outputs parse as Markdown with no live link, image or HTML; the report holds no
    element or handler a student made; CSV cells never run as formulas and every row is one line; the summary
    has one line per student (tests/test_escaping.py holds the rule per renderer; this is the real corpus)."""
    from autograder.reporting import class_report
    from autograder.reporting.canvas import canvas_csv
    from autograder.reporting.feedback import feedback_markdown
    from autograder.reporting.gradebook import gradebook_csv
    from autograder.reporting.gradescope import results_json
    from autograder.reporting.summary import full_table
    from tests.test_escaping import ALLOWED_TAGS, assert_inert_markdown, assert_no_formula, hidden_in, read_csv
    from tests.html_tree import parse_html

    run = run_of(corpus, mode)
    results = [run.results[sid] for sid in run.ids]
    markup = run.results[attacker_id(next(m for m in ATTACKS if short(m) == "markup_text"))]
    assert "markup-attack" in everything_said(markup)  # the payload reached the results: the renderers see it
    for result in results:
        assert_inert_markdown(feedback_markdown(result))
        for entry in results_json(result)["tests"]:
            assert_inert_markdown(entry.get("output") or "")
    monkeypatch.setattr(class_report, "charts", lambda results: None)  # images of the kit's own labels
    document = parse_html(class_report.class_report_html(results))
    elements = list(document.iter())
    assert {e.tag for e in elements} <= ALLOWED_TAGS
    assert not [(e.tag, a) for e in elements for a in e.attrs if a.startswith("on")]
    for text in (gradebook_csv(results), canvas_csv(results)):
        rows = read_csv(text)
        assert len(text.splitlines()) == len(rows)
        assert_no_formula(rows)
    table = full_table(results, [])
    assert not hidden_in(table) and "Class summary: everyone 0" not in table.splitlines()

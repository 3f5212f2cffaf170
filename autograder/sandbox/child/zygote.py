"""The warm fork server. Imports torch once, then forks one locked-down child per student file.

Started by the parent (inside bubblewrap where available) with a control socket whose fd
number is in ATTNKIT_CONTROL_FD.
Control messages are tiny JSON packets on a SOCK_SEQPACKET socket; the data socket for each child arrives with "spawn"
as a passed file descriptor, so the zygote never relays student data.
"""
from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import signal
import socket
import stat
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # -I leaves the script's folder out

TIMES = {"python ready": (time.time(), time.process_time())}  # for the start-up profile (bench/bench_startup.py), sent in the hello
import gc

if __name__ == "__main__":  # the zygote itself, not a test importing its helpers
    gc.disable()  # torch's import makes a million objects and next to no garbage: collected again once warm (main)
import torch  # noqa: F401 - the point of the zygote: pay for this import once
TIMES["torch imported"] = (time.time(), time.process_time())

import confine
import forbid
import harness
import seeded
from quota import Quota, receive_listener, try_allowance
from reaper import NOBODY, reap
from wipe import remove_tree

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
# Without namespaces (rlimits mode) every child gets a user id of its own, so that children of
# different workers cannot signal each other, share files, or share one RLIMIT_NPROC budget.
SANDBOX_UID_BASE = 1_900_000_000
# names (and folders among them) a child may make when the grader does not say (SandboxLimits.scratch_*)
DEFAULT_ENTRIES, DEFAULT_FOLDERS = 1024, 128
SYSTEM_READABLE = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/localtime",
                   "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/sys/devices/system/cpu")
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    _libc.prctl(option, value, 0, 0, 0)


def child_uid(pid: int, own_namespace: bool) -> int:
    return NOBODY if own_namespace else SANDBOX_UID_BASE + pid


def absolute(limits: dict) -> dict:
    """The rlimits to set: RLIMIT_AS_EXTRA is address space on top of this process's own size now."""
    limits = dict(limits)
    extra = limits.pop("RLIMIT_AS_EXTRA", None)
    if extra is not None:
        with open("/proc/self/statm") as statm:
            limits["RLIMIT_AS"] = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE") + extra
    return limits


def lock_down(limits: dict, uid: int, zygote: int, scratch: str, confinement: dict, handoff: socket.socket) -> None:
    """Runs in the fresh child before any student code: drop everything it does not need. Any
    failure here ends the child before student code runs (the zygote checked at start that it works).
    The listener of the child's seccomp filter goes to the fork server over `handoff` (quota.py)."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.mkdir(scratch, 0o700)  # private, wiped at the next reap
    if os.getuid() == 0:  # never let student code run as root
        os.chown(scratch, uid, uid)
        confine.become(uid, keep_read_search=confinement["read_search"])
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after setresuid, which clears it
    if os.getppid() != zygote:  # it died before we asked to die with it
        os._exit(1)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)  # no ptrace or /proc/<pid>/mem from siblings
    me = os.getpid()
    if confinement["landlock"]:
        confine.landlock(confinement["read"] + [f"/proc/{me}"], [scratch, "/dev/null"], confinement["landlock"])
    listener = confine.install_seccomp(me)
    passed = [] if listener is None else [listener]
    socket.send_fds(handoff, [b"listener" if passed else b"none"], passed)
    handoff.close()
    if listener is not None:
        os.close(listener)  # the fork server holds it now; a child holding its own listener could answer itself
    for name, value in absolute(limits).items():
        resource.setrlimit(getattr(resource, name), (value, value))
    torch.set_num_threads(1)
    # No thread may start (seccomp): torch asked for more would abort the process at its next parallel op.
    torch.set_num_threads = torch.set_num_interop_threads = _one_thread
    os.chdir(scratch)
    os.environ.update(HOME=scratch, TMPDIR=scratch)
    tempfile.tempdir = scratch


def _one_thread(count: int) -> None:
    """torch.set_num_threads in a child: one thread, whatever is asked."""


def readable_paths() -> list[str]:
    """What a child may read: the Python installation (and its virtual environment), the harness,
    and the system's shared libraries; nothing of the kit, the submissions or the grader's home."""
    paths = {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)), HERE,
             *SYSTEM_READABLE}
    paths.update(p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p))
    return sorted(p for p in paths if os.path.exists(p))


def world_traversable(path: str) -> bool:
    """Whether a user without any right of its own can reach `path` (every folder above is o+x)."""
    current = os.path.realpath(path)
    while current != "/":
        current = os.path.dirname(current)
        try:
            if not os.stat(current).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def confinement_plan(own_namespace: bool) -> dict:
    abi = confine.landlock_abi() if os.environ.get("ATTNKIT_LANDLOCK", "1") == "1" else 0
    read = readable_paths()
    # As root without namespaces, the child's own uid may be unable to reach a Python installed under
    # a 0700 folder (/root, a mktemp folder): it keeps CAP_DAC_READ_SEARCH, and Landlock (which a
    # capability does not bypass) still limits what it may read. Only with Landlock, and only when
    # the Python installation needs it (the child never needs the harness files: they are loaded).
    python = [p for p in read if p not in SYSTEM_READABLE and p != HERE]
    read_search = bool(abi) and os.getuid() == 0 and not all(world_traversable(p) for p in python)
    return {"landlock": abi, "read": read, "read_search": read_search, "own_namespace": own_namespace}


def self_test(limits: dict, plan: dict, base: str) -> tuple[str, str]:
    """Lock down a throw-away child exactly as a student's: ('' when it worked, else why not; how names are bounded,
    "counted" or "refused": quota.try_allowance)."""
    read_end, write_end = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        ours.close()
        try:
            lock_down(limits, child_uid(os.getpid(), plan["own_namespace"]), os.getppid(),
                      f"{base}/{os.getpid()}", plan, theirs)
            names = try_allowance()
            for path in (os.__file__, torch.__file__):  # the Python installation stays readable
                try:
                    with open(path, "rb") as handle:
                        handle.read(1)
                except OSError as exc:
                    raise OSError(f"the sandbox user cannot read the Python installation ({path}: "
                                  f"{exc.strerror}); without namespaces or Landlock, run the kit from a "
                                  "Python installation that other users can read") from None
            os.write(write_end, names.encode())
            os._exit(0)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which refuses to grade
            os.write(write_end, f"{type(exc).__name__}: {exc}".encode()[:1000])
            os._exit(3)
    os.close(write_end)
    theirs.close()
    quota = Quota(receive_listener(ours), 1, 1, confine.folder_calls())
    quota.serve_until(read_end)
    with os.fdopen(read_end, "rb") as reader:
        why = reader.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    quota.close()
    remove_tree(f"{base}/{pid}")
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return "", why
    return f"a locked-down test process failed: {why or f'exit status {code}'}", ""


def warm_up() -> None:
    """Run one backward pass before forking, seeded as the harness seeds it (child/seeded.py: no sympy, which
    torch would import on a first `backward(out, grad)`), so that a child pays for no first use; and a child
    running as another user may not be allowed to read the Python installation (rlimits mode with Python
    under /root, e.g. pyenv): then only what the zygote imported is importable. So also import a few light
    modules that student code and torch.testing reach for."""
    import html, statistics, sysconfig  # noqa: F401,E401
    import torch.testing  # noqa: F401
    sysconfig.get_config_vars()  # imports the platform's _sysconfigdata module
    x = torch.randn(2, 3, requires_grad=True)
    layer = torch.nn.Linear(3, 3, bias=False)
    seeded.backward(torch.softmax(layer(x), -1), torch.ones(2, 3))


def tasks_of(uid: int) -> int:
    """Threads running as `uid` on the machine: RLIMIT_NPROC counts them all, not only the child's."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as handle:
                    fields = dict(line.split(":", 1) for line in handle if ":" in line)
                if int(fields["Uid"].split()[0]) == uid:
                    count += int(fields["Threads"])
            except (OSError, ValueError, KeyError):
                continue
    return count


@functools.cache
def kept_paths() -> tuple[str, ...]:
    """What a wipe never removes, resolved once: the zygote's own paths, fixed before any child ran."""
    return tuple(os.path.realpath(p) for p in (*readable_paths(), HERE, os.environ.get("ATTNKIT_SCRATCH", "")) if p)


def join_cgroup(pid: int, procs: list[int]) -> str:
    """Move a fresh child into its cgroup (one procs file per hierarchy) before it gets any student code:
    the reply to "spawn" waits for this. '' when done, else why not (the child is then never used)."""
    problem = ""
    for fd in procs:
        try:
            os.write(fd, str(pid).encode())
        except OSError as exc:
            problem = problem or f"{exc.strerror or exc}"
        finally:
            os.close(fd)
    return problem


def main() -> None:
    own_namespace = os.environ.get("ATTNKIT_PID_NAMESPACE") == "1"
    base = os.environ["ATTNKIT_SCRATCH"]
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_DUMPABLE, 0)
    forbid.install()  # before any student file, so every child and thread inherits it (docs/kernels.md)
    warm_up()
    gc.freeze()  # what start-up made is never scanned again, in the zygote or any child (no copy-on-write of it)
    gc.enable()
    TIMES["warmed up (one backward pass)"] = (time.time(), time.process_time())
    plan = confinement_plan(own_namespace)
    kept_paths()  # resolved now, before any child exists
    control = socket.socket(fileno=int(os.environ["ATTNKIT_CONTROL_FD"]))
    problem, names = self_test(json.loads(os.environ.get("ATTNKIT_LIMITS", "{}")), plan, base)
    TIMES["self-check done (one fork)"] = (time.time(), time.process_time())
    control.send(json.dumps({"ready": not problem, "error": problem, "pid": os.getpid(), "landlock": plan["landlock"],
                             "read_search": plan["read_search"], "uid": os.getuid(), "times": TIMES,
                             "scratch_count": names,
                             "sympy": "sympy" in sys.modules}).encode())  # a start-up cost the warm-up avoids
    uids: set[int] = set()  # uids of children since the last reap (as root without namespaces)
    scratches: list[str] = []
    zygote = os.getpid()
    serial = 0  # a scratch folder of a new name for every child, whatever the last one left behind
    quota = Quota(None, 0, 0, confine.folder_calls())  # the current child's names, answered between commands
    while True:
        try:
            quota.serve_until(control.fileno())
            data, fds, _, _ = socket.recv_fds(control, 65536, 4)
        except OSError:
            return
        if not data:
            return
        command = json.loads(data)
        if command["op"] == "spawn":
            limits = command["limits"]
            if os.getuid() != 0 and not own_namespace:  # the child shares the grading user's uid and its count
                limits = {**limits, "RLIMIT_NPROC": limits["RLIMIT_NPROC"] + tasks_of(os.getuid())}
            serial += 1
            scratch = f"{base}/s{serial}-{time.monotonic_ns()}"
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            quota.close()
            pid = os.fork()
            if pid == 0:
                control.close()
                ours.close()
                for fd in fds[1:]:  # the cgroup's procs files, opened by the grader: never the student's
                    os.close(fd)
                try:
                    me = os.getpid()
                    lock_down(limits, child_uid(me, own_namespace), zygote, scratch, plan, theirs)
                    harness.Harness().serve(socket.socket(fileno=fds[0]))
                finally:
                    os._exit(0)
            os.close(fds[0])
            theirs.close()
            reply = {"pid": pid, "cgroup": join_cgroup(pid, fds[1:])}
            quota = Quota(receive_listener(ours), int(command.get("scratch_entries", DEFAULT_ENTRIES)),
                          int(command.get("scratch_folders", DEFAULT_FOLDERS)), confine.folder_calls())
            scratches.append(scratch)
            if not own_namespace and os.getuid() == 0:
                uids.add(child_uid(pid, own_namespace))
        elif command["op"] == "reap":
            quota.close()  # before the kill: a child waiting for an answer gets ENOSYS, then SIGKILL
            reply = reap(own_namespace, uids, scratches, kept_paths())
            uids.clear()
            scratches.clear()
        elif command["op"] == "ping":
            reply = {"pong": True}
        else:
            return
        control.send(json.dumps(reply).encode())


if __name__ == "__main__":
    main()

"""The sandbox itself, without the hidden tests: what a child may do, and what the parent survives."""
from __future__ import annotations

import os
import socket
import struct
import threading
import time
from pathlib import Path

import pytest

from autograder.sandbox import ChildFailure, ForkServer, SandboxConfig, SandboxLimits, SandboxUnavailable, resolve
from autograder.sandbox.child import confine, wire
from autograder.sandbox.isolation import bwrap_binary, bwrap_sizes_tmpfs, bwrap_works, landlock_abi, python_paths
from autograder.sandbox.child.zygote import world_traversable


def in_process_modes() -> list:
    """Every isolation mode this user can start here; each skipped one says why."""
    modes = []
    why_not_bwrap = bwrap_works()
    modes.append(pytest.param("bwrap", marks=() if why_not_bwrap[0] else pytest.mark.skip(reason=why_not_bwrap[1])))
    modes.append(pytest.param("landlock", marks=() if landlock_abi() else pytest.mark.skip(reason="no Landlock")))
    readable = os.getuid() != 0 or all(world_traversable(p) for p in python_paths())
    modes.append(pytest.param("rlimits", marks=() if readable else pytest.mark.skip(
        reason="as root, the weak mode needs a Python installation other users can read "
               "(tests/test_isolation.py covers it with one)")))
    return modes


MODES = in_process_modes()


def start(mode: str, limits: SandboxLimits = SandboxLimits()) -> ForkServer:
    server = ForkServer(SandboxConfig(isolation=mode, allow_weak=True, limits=limits))
    server.start()
    return server


@pytest.fixture(params=MODES)
def server(request):
    server = start(request.param)
    yield server
    server.close()


def run_cells(server: ForkServer, *cells: str, seconds: float = 20) -> dict:
    child = server.spawn()
    try:
        return child.request({"op": "load", "module": "probe", "filename": "probe.py", "cells": list(cells)}, seconds)
    finally:
        child.close()


def printed(reply: dict) -> dict[str, str]:
    return dict(line.split("=", 1) for line in reply["stdout"].splitlines() if "=" in line)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# ------------------------------------------------------------------------------------------------
# the wire

def test_a_dribbling_sender_cannot_hold_the_receiver_past_its_deadline():
    ours, theirs = socket.socketpair()
    stop = threading.Event()

    def dribble():
        theirs.sendall(struct.pack(">QQ", 100, 1 << 20))
        while not stop.is_set():
            theirs.sendall(b"[")
            time.sleep(0.05)

    threading.Thread(target=dribble, daemon=True).start()
    ours.settimeout(0.5)  # each recv gets a byte well within this: only the deadline can stop it
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        wire.receive(ours, 1 << 30, deadline=time.monotonic() + 1.0)
    assert time.monotonic() - start < 60  # the deadline ended it: dribbling 1 MiB would take 14 hours (no load margin)
    stop.set()
    ours.close()
    theirs.close()


@pytest.mark.parametrize("header", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"body": {"$tensor": 0}, "tensors": [{"dtype": "float32", "shape": [0, 1000000000000000000000000000000], '
    b'"offset": 0}]}',
    b'{"body": {"$tensor": 0}, "tensors": [{"dtype": "float32", "shape": [2], "offset": 1e999}]}',
    b'{"body": {"$tensor": 0}, "tensors": [{"dtype": "object", "shape": [2], "offset": 0}]}',
    b'{"body": {"$tensor": 5}, "tensors": []}',
    b"\x80\x04\x95pickle",
])
def test_hostile_messages_are_wire_errors(header):
    with pytest.raises(wire.WireError):
        wire.decode(header, b"")


# ------------------------------------------------------------------------------------------------
# a child's world

LOOK_AROUND = r'''
import ctypes, os, resource, socket, tempfile
print("uid=%d" % os.getuid())
print("cwd=" + os.getcwd())
print("home=" + os.environ.get("HOME", "") + " tmpdir=" + tempfile.gettempdir())
value = ctypes.c_int()
ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)
print("pdeathsig=%d" % value.value)
print("fsize=%d" % resource.getrlimit(resource.RLIMIT_FSIZE)[0])
for name, family, kind in [("inet", socket.AF_INET, socket.SOCK_STREAM), ("inet6", socket.AF_INET6, socket.SOCK_DGRAM),
                           ("unix", socket.AF_UNIX, socket.SOCK_STREAM)]:
    try:
        socket.socket(family, kind).close()
        print(name + "=open")
    except OSError as exc:
        print(name + "=" + type(exc).__name__)
a, b = socket.socketpair()
print("socketpair=ok")
print("fds=" + ",".join(sorted(os.listdir("/proc/self/fd"))))
print("pid=%d" % os.getpid())
def attempt(name, action):
    try:
        action()
        print(name + "=ok")
    except OSError as exc:
        print(name + "=" + type(exc).__name__)
attempt("signal_parent", lambda: os.kill(os.getppid(), 0))
attempt("signal_self", lambda: os.kill(os.getpid(), 0))
attempt("pidfd_parent", lambda: os.close(os.pidfd_open(os.getppid())))
attempt("environ_parent", lambda: open("/proc/%d/environ" % os.getppid()).read())
attempt("list_proc", lambda: os.listdir("/proc"))
attempt("list_root", lambda: os.listdir("/"))
attempt("read_etc_passwd", lambda: open("/etc/passwd").read())
attempt("read_harness", lambda: open(__HARNESS__).read())
attempt("read_kit", lambda: open(__KIT_FILE__).read())
attempt("read_python", lambda: open(os.__file__).read())
attempt("write_scratch", lambda: open("made-here", "w").close())
attempt("write_tmp", lambda: open("/tmp/xsbx-not-here", "w").close())
attempt("write_shm", lambda: open("/dev/shm/xsbx-not-here", "w").close())
import numpy.testing  # imported lazily, from the Python installation
print("lazy_import=ok")
'''


def look_around(server):
    harness = "/opt/attnkit-harness/harness.py" if server.isolation == "bwrap" else str(
        Path(__file__).resolve().parents[1] / "autograder" / "sandbox" / "child" / "harness.py")
    kit_file = Path(__file__).resolve().parents[1] / "solutions" / "attention_scores" / "attention_scores.py"
    return printed(run_cells(server, LOOK_AROUND.replace("__HARNESS__", repr(harness))
                             .replace("__KIT_FILE__", repr(str(kit_file)))))


def test_child_is_locked_down(server):
    seen, again = look_around(server), look_around(server)
    assert seen["uid"] != "0"
    assert seen["cwd"] != again["cwd"], "two children shared a scratch folder"
    assert seen["home"] == f"{seen['cwd']} tmpdir={seen['cwd']}"  # HOME and TMPDIR: the private scratch folder
    assert seen["pdeathsig"] == "9"  # set after dropping privileges, which clears it
    assert seen["fsize"] == "0"
    assert seen["inet"] == seen["inet6"] == seen["unix"] == "PermissionError" and seen["socketpair"] == "ok"
    assert seen["fds"] == "0,1,2,3,4,5,6"  # stdio on /dev/null, its socket, the socketpair, listdir's own fd
    assert seen["signal_self"] == "ok" and seen["signal_parent"] == "PermissionError"
    assert seen["pidfd_parent"] == "PermissionError"
    assert seen["environ_parent"] == "PermissionError"
    assert seen["read_python"] == seen["read_harness"] == seen["lazy_import"] == "ok"
    assert seen["write_scratch"] == "ok"
    if server.isolation != "rlimits":  # Landlock: only Python, the system's libraries and the scratch folder
        assert seen["read_kit"] in ("PermissionError", "FileNotFoundError")  # the reference solution
        denied = ("list_proc", "list_root", "read_etc_passwd", "write_tmp", "write_shm")
        assert {k: seen[k] for k in denied} == dict.fromkeys(denied, "PermissionError")
    if server.isolation != "bwrap" and os.getuid() == 0:
        assert seen["uid"] != again["uid"], "children without namespaces share a uid"


def test_scratch_folder_is_wiped_between_children(server):
    plant = "import os\nos.makedirs('planted/inner')\nopen('planted/inner/x', 'w').close()\nprint('cwd=' + os.getcwd())"
    folder = printed(run_cells(server, plant))["cwd"]
    look = ("import os, glob\nprint('found=' + repr(glob.glob(%r + '/*')))" % folder)
    assert printed(run_cells(server, look))["found"] == "[]"
    if server.isolation != "bwrap":
        assert not os.path.exists(folder)


@pytest.mark.parametrize("mode", MODES)
def test_limits_count_cpu_time_not_the_wall_clock(mode):
    """A call may take long on the wall clock without computing (a busy machine, a sleep), but not
    compute past its CPU limit; a call that waits forever ends at the wall-clock ceiling."""
    server = start(mode, SandboxLimits(call_seconds=0.5, wall_factor=20))
    try:
        child = server.spawn()
        code = ("import time\ndef nap(s):\n    time.sleep(s)\n    return 1\n"
                "def spin():\n    while True:\n        pass\n")
        child.request({"op": "load", "module": "p", "filename": "p.py", "cells": [code]}, 20)
        assert child.request({"op": "run", "target": "nap", "args": [1.5]}, 0.5)["output"] == 1
        with pytest.raises(ChildFailure, match=r"after 0\.5 s of CPU time"):
            child.request({"op": "run", "target": "spin"}, 0.5)
        child = server.spawn()
        child.request({"op": "load", "module": "p", "filename": "p.py", "cells": [code]}, 20)
        with pytest.raises(ChildFailure, match=r"spent waiting or sleeping rather than computing"):
            child.request({"op": "run", "target": "nap", "args": [60]}, 0.5)
    finally:
        server.close()


def test_refuses_without_namespaces_or_landlock_unless_allowed(monkeypatch):
    monkeypatch.setenv("ATTNKIT_BWRAP", "")
    monkeypatch.setenv("ATTNKIT_LANDLOCK", "0")
    with pytest.raises(SandboxUnavailable, match="--allow-weak-isolation"):
        resolve("auto")
    weak = resolve("auto", allow_weak=True)
    assert weak.mode == "rlimits" and "WARNING" in weak.warning and not weak.full
    monkeypatch.setenv("ATTNKIT_LANDLOCK", "1")
    if landlock_abi():
        assert resolve("auto").mode == "landlock"
    with pytest.raises(SandboxUnavailable, match="not installed"):
        resolve("bwrap")


def test_seccomp_program_is_well_formed():
    """Jumps stay inside the program and the pid checks carry the process's own pid."""
    for machine in ("x86_64", "aarch64"):
        program = confine.seccomp_program(4242, machine)
        assert len(program) < 128
        for index, (op, true, false, k) in enumerate(program):
            assert index + 1 + max(true, false) < len(program) or op == 0x06
        assert any(k == 4242 for _, _, _, k in program) and any(k == (-4242) & 0xFFFFFFFF for _, _, _, k in program)


def named(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and Path(f"/proc/{entry}/comm").read_text().strip() == marker and alive(int(entry)):
                found.append(int(entry))
        except OSError:
            pass
    return found


CREATE_PROCESSES = r"""
import os, threading, subprocess, multiprocessing, ctypes
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, make):
    try:
        make()
        print(name + "=made")
    except BaseException as exc:
        print(name + "=" + type(exc).__name__)
attempt("fork", os.fork)
attempt("thread", lambda: threading.Thread(target=lambda: None).start())
attempt("subprocess", lambda: subprocess.run(["true"]))
attempt("multiprocessing", lambda: multiprocessing.Process(target=print).start())
attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
def raw_clone(flags):
    def call():
        pid = libc.syscall(56 if os.uname().machine == "x86_64" else 220, flags, 0, 0, 0, 0)
        if pid == 0:
            os._exit(0)
        if pid < 0:
            raise OSError(ctypes.get_errno(), "clone")
    return call
attempt("clone_vm", raw_clone(0x100 | 17))       # CLONE_VM | SIGCHLD
attempt("clone_thread", raw_clone(0x10900))      # CLONE_THREAD | CLONE_SIGHAND | CLONE_VM
import torch
x = torch.randn(40, 30, requires_grad=True)
layer = torch.nn.Linear(30, 20)
torch.softmax(layer(x) @ layer(x).T, -1).sum().backward()
print("backward=" + str(tuple(x.grad.shape)) + " threads=" + str(torch.get_num_threads()))
"""


def test_student_code_creates_no_process_and_no_thread(server):
    """The student's code is one process (its rlimits bound all of it); torch still computes gradients."""
    seen = printed(run_cells(server, CREATE_PROCESSES))
    attempts = ("fork", "thread", "subprocess", "multiprocessing", "posix_spawn", "clone_vm", "clone_thread")
    assert all(seen[name] != "made" for name in attempts), seen
    assert seen["backward"] == "(40, 30) threads=1"


REACH_OTHERS = r"""
import os, resource, ctypes
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, call):
    try:
        result = call()
        if isinstance(result, int) and result < 0:
            raise OSError(ctypes.get_errno(), name)
        print(name + "=ok")
    except BaseException as exc:
        print(name + "=" + type(exc).__name__)
parent = os.getppid()
attempt("prlimit_parent", lambda: resource.prlimit(parent, resource.RLIMIT_NOFILE, (8, 8)))
attempt("prlimit_one", lambda: resource.prlimit(1, resource.RLIMIT_FSIZE, (0, 0)))
attempt("prlimit_self", lambda: resource.prlimit(0, resource.RLIMIT_NOFILE, (60, 60)))
attempt("prlimit_own", lambda: resource.prlimit(os.getpid(), resource.RLIMIT_CORE, (0, 0)))
attempt("nice_parent", lambda: os.setpriority(os.PRIO_PROCESS, parent, 19))
attempt("nice_group", lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
attempt("nice_user", lambda: os.setpriority(os.PRIO_USER, os.getuid(), 19))
attempt("nice_self", lambda: os.setpriority(os.PRIO_PROCESS, 0, min(19, os.getpriority(os.PRIO_PROCESS, 0) + 1)))
attempt("affinity_parent", lambda: os.sched_setaffinity(parent, {0}))
attempt("affinity_self", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
attempt("scheduler_parent", lambda: os.sched_setscheduler(parent, os.SCHED_IDLE, os.sched_param(0)))
attempt("ioprio_parent", lambda: libc.syscall(251 if os.uname().machine == "x86_64" else 30, 1, parent, 7 << 13))
attempt("shmget", lambda: libc.shmget(0, 4096, 0o1000 | 0o600))
attempt("msgget", lambda: libc.msgget(0, 0o1000 | 0o600))
attempt("semget", lambda: libc.semget(0, 1, 0o1000 | 0o600))
attempt("mq_open", lambda: ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/xsbx", 0o100 | 2, 0o600, None))
attempt("inotify", lambda: libc.inotify_init1(0))
attempt("fanotify", lambda: libc.fanotify_init(0, 0))
"""


def test_no_reach_into_other_processes_limits_or_scheduling(server):
    seen = printed(run_cells(server, REACH_OTHERS))
    own = ("prlimit_self", "prlimit_own", "nice_self", "affinity_self")
    assert {k: seen[k] for k in own} == dict.fromkeys(own, "ok")
    refused = [k for k in seen if k not in own]
    assert len(refused) == 14 and all(seen[k] == "PermissionError" for k in refused), seen


@pytest.mark.parametrize("mode", MODES)
def test_a_killed_zygote_takes_its_children_along(mode):
    """The worker died hard (no reap is coming): the child must not outlive its zygote. (Daemons
    that already double-forked away do, in rlimits mode: nothing but a PID namespace holds them.)"""
    marker = f"xsbx-z-{os.getpid() % 10000}{mode[0]}"
    server = start(mode)
    child = server.spawn()
    child.request({"op": "load", "module": "probe", "filename": "probe.py",
                   "cells": [f"import ctypes\nctypes.CDLL(None).prctl(15, {marker!r}.encode(), 0, 0, 0)"]}, 20)
    assert named(marker)
    server.process.kill()
    server.process.wait()
    deadline = time.monotonic() + 120  # it dies at once (PDEATHSIG); a busy machine may be slow to show it
    while named(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not named(marker), "the child outlived its zygote"
    server.process = None
    child.sock.close()
    server.close()


@pytest.mark.skipif(os.getuid() != 0, reason="without root the fallback cannot tell the child's files from ours")
@pytest.mark.parametrize("mode", [m for m in MODES if m.values[0] == "rlimits"])
def test_files_a_weak_child_leaves_in_tmp_are_removed(mode):
    """Without Landlock a child may write to /tmp (no data: RLIMIT_FSIZE is 0); what it made goes."""
    server = start(mode)
    try:
        name = f"/tmp/xsandbox-test-{os.getpid()}"
        reply = run_cells(server, f"open({name!r}, 'w').close()\nimport os\nos.makedirs({name!r} + '-dir/a')\n"
                                  f"print('made=%s' % os.path.exists({name!r}))")
        assert printed(reply)["made"] == "True"
        assert not os.path.exists(name) and not os.path.exists(name + "-dir")
    finally:
        server.close()


LEAVE_A_MESS = r"""
import os
top = os.getcwd()
os.chdir(top)
for level in range(100):           # longer than PATH_MAX
    os.mkdir("d" * 250)
    os.chdir("d" * 250)
os.chdir(top)
os.makedirs("locked/inner/deeper")
open("locked/inner/f", "w").close()
for folder in ("locked/inner/deeper", "locked/inner", "locked"):
    os.chmod(folder, 0)            # mode 000, innermost first
os.mkdir(b"name-\xff\xfe\n\x1b")
open(b"name-\xff\xfe\n\x1b/\xed\xa0\x80", "w").close()
os.mkdir("many")
for index in range(900):           # with the rest, just inside a child's allowance (1024 names, 128 folders)
    open("many/%d" % index, "w").close()
print("mess=" + top)
"""


MAKE_METADATA = r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, call):
    try:
        call()
        print(name + "=ok")
    except OSError as exc:
        print(name + "=" + errno.errorcode.get(exc.errno, str(exc.errno)))
def until_refused(what, make):
    made = 0
    while made < 500:
        try:
            make(made)
            made += 1
        except OSError as exc:
            print("%s=%d %s" % (what, made, errno.errorcode.get(exc.errno, str(exc.errno))))
            return
folders = (lambda i: os.mkdir("d%d" % i), lambda i: os.makedirs("m%d" % i))
until_refused("folders", lambda i: folders[i % 2](i))
files = (lambda i: open("f%d" % i, "w").close(), lambda i: os.close(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)),
         lambda i: os.close(os.open("g%d" % i, os.O_CREAT | os.O_WRONLY, 0o600)))
until_refused("files", lambda i: files[i % 3](i))
attempt("symlink", lambda: os.symlink("x" * 4000, "link"))
attempt("hardlink", lambda: os.link("f0", "link"))
attempt("fifo", lambda: os.mkfifo("fifo"))
attempt("xattr", lambda: os.setxattr(".", "user.a", b"y" * 4000))
attempt("lxattr", lambda: os.setxattr("f0", "user.a", b"y", follow_symlinks=False))
def reserve():
    fd = os.open("f0", os.O_RDWR)
    if libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(1 << 24)) != 0:
        raise OSError(ctypes.get_errno(), "fallocate")
attempt("fallocate", reserve)
def whiteout():
    if libc.renameat2(-100, b"f0", -100, b"moved", 4) != 0:  # AT_FDCWD, RENAME_WHITEOUT
        raise OSError(ctypes.get_errno(), "renameat2")
attempt("whiteout", whiteout)
import socket
attempt("bind", lambda: socket.socketpair()[0].bind("named-socket"))
attempt("rename", lambda: os.rename("f0", "renamed"))
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_child_makes_at_most_its_allowance_of_names_and_no_other_metadata(mode):
    """Folders, files and unnamed files count against the child's allowance, folders against their own too
    (EDQUOT past either, a fresh allowance for the next child); links, fifos, whiteouts, bound sockets, extended
    attributes and preallocated blocks are refused outright."""
    server = start(mode, SandboxLimits(scratch_entries=40, scratch_folders=6))
    try:
        assert server.hello["scratch_count"] == "counted"
        for _ in range(2):
            seen = printed(run_cells(server, MAKE_METADATA))
            assert (seen["folders"], seen["files"]) == ("6 EDQUOT", "34 EDQUOT")
            denied = ("symlink", "hardlink", "fifo", "xattr", "lxattr", "fallocate", "whiteout", "bind")
            assert {k: seen[k] for k in denied} == dict.fromkeys(denied, "EPERM")
            assert seen["rename"] == "ok"  # a plain rename makes no new inode
    finally:
        server.close()


def test_bubblewraps_tmp_and_shm_are_tmpfs_of_the_size_asked():
    ok, why = bwrap_works()
    if not ok or not bwrap_sizes_tmpfs(bwrap_binary()):
        pytest.skip(why if not ok else "this bubblewrap cannot size a tmpfs (--size)")
    server = start("bwrap", SandboxLimits(scratch_tmpfs_bytes=8 << 20))
    try:
        seen = printed(run_cells(server, "import os\nfor path in ('/tmp', '/dev/shm', '.'):\n"
                                         "    fs = os.statvfs(path)\n    print(path + '=%d' % (fs.f_blocks * fs.f_frsize))"))
    finally:
        server.close()
    assert seen == {"/tmp": str(8 << 20), "/dev/shm": str(8 << 20), ".": str(8 << 20)}


def test_without_a_listener_every_call_that_makes_a_name_is_refused(tmp_path):
    """Where the kernel gives no seccomp listener (here: a filter above already holds one), the filter refuses
    names outright (EDQUOT) instead of letting them through uncounted, and still refuses links."""
    pid = os.fork()
    if pid == 0:  # a process of its own: a seccomp filter cannot be taken off again
        verdict = 1
        try:
            confine._libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
            above = confine.install_seccomp(os.getpid())
            second = confine.install_seccomp(os.getpid())
            if above is not None:
                os.close(above)  # nobody answers the filter above: what reaches it fails with ENOSYS, never hangs
            seen = []
            for call in (lambda: os.mkdir(tmp_path / "folder"), lambda: open(tmp_path / "file", "w"),
                         lambda: os.symlink("x", tmp_path / "link")):
                try:
                    call()
                    seen.append(0)
                except OSError as exc:
                    seen.append(exc.errno)
            verdict = 0 if (above is not None, second, seen) == (True, None, [122, 122, 1]) else 2
        finally:
            os._exit(verdict)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert list(tmp_path.iterdir()) == []


def test_matplotlib_finds_its_folders_in_the_scratch_folder(server):
    """Student code may plot: matplotlib makes its config and cache folders within the allowance."""
    reply = run_cells(server, "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                              "plt.plot([1, 2], [3, 4])\nprint('cache=' + matplotlib.get_cachedir())")
    assert reply["errors"] == [] and printed(reply)["cache"].endswith("/.cache/matplotlib")


def test_no_leftover_stops_the_wipe(server):
    """A deep tree, folders without rights, names in no encoding and as many files as a child may make: the fork
    server survives, the next child starts in a fresh, empty folder, and (where the host sees it) nothing is
    left."""
    zygote = server.process.pid
    folder = printed(run_cells(server, LEAVE_A_MESS, seconds=120))["mess"]
    look = "import os\nprint('cwd=' + os.getcwd())\nprint('entries=%d' % len(os.listdir('.')))"
    after = printed(run_cells(server, look))
    assert after["entries"] == "0" and after["cwd"] != folder
    assert server.process.pid == zygote and server.process.poll() is None
    if server.isolation != "bwrap":
        assert not os.path.lexists(folder)
    assert server.leftovers == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_close_that_does_not_wait_is_still_reaped_before_the_next_child(mode):
    """A grading session's close only sends the reap (Child.close(settle=False)): once the next child is spawned,
    the last one's process is gone and its scratch folder wiped, as after a close that waits."""
    marker = f"xsbx-s-{os.getpid() % 10000}{mode[0]}"
    server = start(mode)
    try:
        child = server.spawn()
        reply = child.request({"op": "load", "module": "probe", "filename": "probe.py", "cells": [
            f"import ctypes, os\nctypes.CDLL(None).prctl(15, {marker!r}.encode(), 0, 0, 0)\n"
            "open('left', 'w').close()\nprint('cwd=' + os.getcwd())"]}, 20)
        folder = printed(reply)["cwd"]
        assert named(marker)
        child.close(settle=False)
        assert server.unanswered_reap
        after = server.spawn()
        assert not server.unanswered_reap and not named(marker), "the last child outlived the next spawn"
        look = after.request({"op": "load", "module": "look", "filename": "look.py", "cells": [
            f"import os\nprint('found=' + repr(os.path.exists({folder!r} + '/left')))"]}, 20)
        assert printed(look)["found"] == "False"
        after.close()
    finally:
        server.close()


def test_a_fork_server_stopped_with_a_reap_unanswered_is_replaced_without_waiting_it_out():
    """The reap's answer is awaited in short slices that look at the fork server: stopped, it is replaced at
    once, not after the control socket's 300 s."""
    import signal

    server = start(resolve("auto").mode)
    try:
        server.spawn().close(settle=False)
        old = server.process.pid
        os.kill(server.zygote_pid, signal.SIGSTOP)
        began = time.monotonic()
        server.ensure_healthy()
        assert time.monotonic() - began < 150  # half the 300 s it waited before; about 1 s here
        assert server.process.pid != old
        assert printed(run_cells(server, "print('alive=yes')"))["alive"] == "yes"
    finally:
        server.close()


@pytest.mark.parametrize("how", ["killed", "stopped"])
def test_a_broken_fork_server_is_replaced_before_the_next_student(how):
    import signal

    from autograder.sandbox.server import _process_state as process_state

    server = start(resolve("auto").mode)
    try:
        run_cells(server, "x = 1")
        old = server.process.pid
        os.kill(server.zygote_pid, signal.SIGKILL if how == "killed" else signal.SIGSTOP)
        # kill() returns before the zygote has stopped: once it shows as stopped, the check must see it at
        # once (else only the 60 s ping would, and the test waited for that)
        waited = time.monotonic()
        while how == "stopped" and process_state(server.zygote_pid) not in ("T", "t") and time.monotonic() - waited < 30:
            time.sleep(0.01)
        server.ensure_healthy()
        assert server.process.pid != old
        assert printed(run_cells(server, "print('alive=yes')"))["alive"] == "yes"
    finally:
        server.close()


def test_the_graders_work_runs_while_the_fork_server_starts_and_costs_the_student_nothing():
    """The first spawn finds the zygote still importing torch: the grader's idle work runs then (not after,
    in front of the child), and neither that wait nor that work is taken from the file's time budget."""
    from autograder.sandbox import SandboxConfig, SandboxLimits
    from autograder.sandbox.isolation import resolve

    chosen = resolve("auto", False)
    server = ForkServer(SandboxConfig(isolation=chosen.mode, allow_weak=False,
                                      limits=SandboxLimits.from_environment()), chosen)
    server.launch()
    ran = []
    server.when_idle(lambda: ran.append(bool(server.hello)))  # False: it ran before the hello
    server.when_idle(lambda: time.sleep(0.3))  # the grader's own work
    try:
        deadline = time.monotonic() + 5.0
        child = server.spawn(deadline)
        # torch's import takes the zygote a second or more, so the work runs before its hello; were the hello
        # ever first, the same work would run once the first request is sent, with the same credit
        child.request({"op": "load", "module": "p", "filename": "p.py", "cells": ["x = 1"]}, 20)
        assert len(ran) == 1
        assert server.credit[deadline] >= 0.3 and child.budget_end >= deadline + 0.3
    finally:
        server.close()

"""The sandbox itself, without the hidden tests: what a child may do, and what the parent survives."""
from __future__ import annotations

import os
import socket
import struct
import threading
import time
from pathlib import Path

import pytest

from autograder.sandbox import ForkServer, SandboxConfig
from autograder.sandbox.child import wire
from autograder.sandbox.server import bwrap_works

# Where bubblewrap cannot run, only the fallback is tested (tests/test_adversarial.py says so in a skip).
MODES = ("bwrap", "rlimits") if bwrap_works()[0] else ("rlimits",)


@pytest.fixture(params=MODES)
def server(request):
    server = ForkServer(SandboxConfig(isolation=request.param))
    server.start()
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
    assert time.monotonic() - start < 2.0
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
import ctypes, os, resource, socket
print("uid=%d" % os.getuid())
print("cwd=" + os.getcwd())
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
print("fds=" + ",".join(sorted(os.listdir("/proc/self/fd"))))
print("pid=%d" % os.getpid())
'''


def test_child_is_locked_down(server):
    seen = printed(run_cells(server, LOOK_AROUND))
    again = printed(run_cells(server, LOOK_AROUND))
    assert int(seen["uid"]) != 0
    assert seen["cwd"] == "/"
    assert seen["pdeathsig"] == "9"  # set after dropping privileges, which clears it
    assert seen["fsize"] == "0"
    assert seen["inet"] == seen["inet6"] == "PermissionError" and seen["unix"] == "open"
    assert seen["fds"] == "0,1,2,3,4"  # stdio on /dev/null, its socket, and listdir's own fd
    if server.isolation == "rlimits" and os.getuid() == 0:
        assert seen["uid"] != again["uid"], "children of the fallback share a uid"


def named(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and Path(f"/proc/{entry}/comm").read_text().strip() == marker and alive(int(entry)):
                found.append(int(entry))
        except OSError:
            pass
    return found


def daemon_code(marker: str) -> str:
    return f'''
import ctypes, os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, {marker!r}.encode(), 0, 0, 0)
        time.sleep(60)
    os._exit(0)
time.sleep(0.3)
ctypes.CDLL(None).prctl(15, {marker + "-main"!r}.encode(), 0, 0, 0)
'''


def test_daemons_die_with_the_child(server):
    marker = f"xsbx-d-{os.getpid() % 10000}{server.isolation[0]}"
    child = server.spawn()
    child.request({"op": "load", "module": "probe", "filename": "probe.py", "cells": [daemon_code(marker)]}, 20)
    assert named(marker), "the daemon did not start"
    child.close()
    assert not named(marker)


@pytest.mark.parametrize("mode", MODES)
def test_a_killed_zygote_takes_its_children_along(mode):
    """The worker died hard (no reap is coming): the child must not outlive its zygote. (Daemons
    that already double-forked away do, in rlimits mode: nothing but a PID namespace holds them.)"""
    marker = f"xsbx-z-{os.getpid() % 10000}{mode[0]}"
    server = ForkServer(SandboxConfig(isolation=mode))
    server.start()
    child = server.spawn()
    child.request({"op": "load", "module": "probe", "filename": "probe.py",
                   "cells": [f"import ctypes\nctypes.CDLL(None).prctl(15, {marker!r}.encode(), 0, 0, 0)"]}, 20)
    assert named(marker)
    server.process.kill()
    server.process.wait()
    deadline = time.monotonic() + 5
    while named(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not named(marker), "the child outlived its zygote"
    server.process = None
    child.sock.close()
    server.close()


def test_closing_the_server_reaps_what_the_last_child_left():
    server = ForkServer(SandboxConfig(isolation="rlimits"))
    server.start()
    child = server.spawn()
    marker = f"xsbx-c-{os.getpid() % 10000}"
    child.request({"op": "load", "module": "probe", "filename": "probe.py", "cells": [daemon_code(marker)]}, 20)
    assert named(marker)
    server.close()  # no child.close(): the worker is shutting down mid-student
    assert not named(marker)


@pytest.mark.skipif(os.getuid() != 0, reason="without root the fallback cannot tell the child's files from ours")
def test_files_a_fallback_child_leaves_in_tmp_are_removed():
    server = ForkServer(SandboxConfig(isolation="rlimits"))
    server.start()
    try:
        name = f"/tmp/xsandbox-test-{os.getpid()}"
        reply = run_cells(server, f"open({name!r}, 'w').close()\nimport os\nos.makedirs({name!r} + '-dir/a')\n"
                                  f"print('made=%s' % os.path.exists({name!r}))")
        assert printed(reply)["made"] == "True"
        assert not os.path.exists(name) and not os.path.exists(name + "-dir")
    finally:
        server.close()

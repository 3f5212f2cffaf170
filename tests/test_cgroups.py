"""A cgroup per student child (autograder/sandbox/cgroups.py).

The v2 path runs against a fake cgroupfs in tmp_path (detection, the leaf move, the files written, the
usage read back): it has not run on a real v2 kernel with delegated controllers here. The v1 path runs
for real where this process may make v1 cgroups (root on a legacy hierarchy): a child that touches more
memory than its group allows is stopped and told so, a classmate after it is unaffected, the pids limit
refuses a fork, and nothing is left on the host.
"""
from __future__ import annotations

import mmap
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder.sandbox import ChildFailure, ForkServer, SandboxConfig, SandboxLimits, cgroups
from autograder.sandbox.isolation import bwrap_works

MIB = 1 << 20
DEAD_PID = 2**22 + 1  # above the kernel's largest pid_max: never a live process


# ------------------------------------------------------------------------------------------------
# a fake cgroupfs

def mountinfo(lines: list[tuple[str, str, str, str]]) -> str:
    """(mount point, root, fstype, super options) as /proc/self/mountinfo writes them."""
    return "\n".join(f"{30 + i} 23 0:{30 + i} {root} {point} rw,relatime - {fstype} {fstype} rw,{options}"
                     for i, (point, root, fstype, options) in enumerate(lines)) + "\n"


def fake_v2(tmp_path: Path, controllers: str = "cpuset cpu io memory hugetlb pids", own: str = "/user.slice/run"):
    mount = tmp_path / "unified"
    base = mount / own.lstrip("/")
    base.mkdir(parents=True)
    (base / "cgroup.controllers").write_text(controllers + "\n")
    (base / "cgroup.subtree_control").write_text("\n")
    (base / "cgroup.procs").write_text(f"{os.getpid()}\n")
    return mountinfo([(str(mount), "/", "cgroup2", "nsdelegate")]), f"0::{own}\n", base


def fake_v1(tmp_path: Path, controllers=("memory", "pids", "cpu"), own: str = "/job"):
    lines, membership = [], []
    for index, controller in enumerate(controllers):
        mount = tmp_path / controller
        (mount / own.lstrip("/")).mkdir(parents=True)
        (mount / own.lstrip("/") / "cgroup.procs").write_text("")
        lines.append((str(mount), "/", "cgroup", controller))
        membership.append(f"{index + 1}:{controller}:{own}")
    return mountinfo(lines), "\n".join(membership) + "\n"


def test_v2_with_the_controllers_is_chosen_first_and_prepared(tmp_path):
    info, member, base = fake_v2(tmp_path)
    hierarchy = cgroups.detect(info, member, wanted="auto")
    assert hierarchy.kind == "v2" and set(hierarchy.bases.values()) == {base}
    hierarchy.prepare()
    # our processes moved into the leaf, then the controllers enabled for the children
    assert (base / cgroups.LEAF / "cgroup.procs").read_text() == str(os.getpid())
    assert (base / "cgroup.subtree_control").read_text().split() == ["+memory", "+pids", "+cpu"]


def test_v2_group_limits_usage_and_removal(tmp_path):
    info, member, base = fake_v2(tmp_path)
    hierarchy = cgroups.detect(info, member, wanted="v2")
    group = hierarchy.create(cgroups.GroupLimits(memory_bytes=256 * MIB, processes=7, cpu_cores=0.5))
    (folder,) = group.folders
    assert folder.parent == base and cgroups.NAME.match(folder.name)
    assert (folder / "memory.max").read_text() == str(256 * MIB)
    assert (folder / "pids.max").read_text() == "7"
    assert (folder / "cpu.max").read_text() == "50000 100000"
    assert group.usage() == cgroups.Usage(None, 0)
    (folder / "memory.peak").write_text(f"{300 * MIB}\n")
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n")
    assert group.usage() == cgroups.Usage(300 * MIB, 1)
    assert group.remove() == [] and not folder.exists()


def test_v2_from_our_own_leaf_makes_groups_beside_it(tmp_path):
    """A worker started after prepare() sits in the leaf; its groups still go in the delegated cgroup."""
    info, _, base = fake_v2(tmp_path)
    (base / cgroups.LEAF).mkdir()
    hierarchy = cgroups.detect(info, f"0::/user.slice/run/{cgroups.LEAF}\n", wanted="v2")
    assert set(hierarchy.bases.values()) == {base}


def test_v2_without_the_controllers_falls_back_to_v1_or_none(tmp_path):
    info, member, _ = fake_v2(tmp_path, controllers="hugetlb")  # what this machine's unified hierarchy offers
    assert cgroups.detect(info, member, wanted="auto") is None
    v1_info, v1_member = fake_v1(tmp_path / "legacy")
    hierarchy = cgroups.detect(info + v1_info, member + v1_member, wanted="auto")
    assert hierarchy.kind == "v1" and list(hierarchy.bases) == ["memory", "pids", "cpu"]
    assert hierarchy.bases["memory"] == tmp_path / "legacy" / "memory" / "job"


def test_v1_needs_memory_and_pids_and_uses_cpu_where_mounted(tmp_path):
    info, member = fake_v1(tmp_path / "a", controllers=("memory", "cpu"))
    assert cgroups.detect(info, member, wanted="v1") is None
    info, member = fake_v1(tmp_path / "b", controllers=("memory", "pids"))
    hierarchy = cgroups.detect(info, member, wanted="v1")
    group = hierarchy.create(cgroups.GroupLimits(memory_bytes=64 * MIB, processes=3))
    memory, pids = group.folders
    assert (memory / "memory.limit_in_bytes").read_text() == str(64 * MIB)
    assert (pids / "pids.max").read_text() == "3"
    (memory / "memory.max_usage_in_bytes").write_text(f"{70 * MIB}\n")
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    assert group.usage() == cgroups.Usage(70 * MIB, 2)
    assert group.remove() == []


def test_a_cgroup_namespace_root_is_honoured(tmp_path):
    """Inside a cgroup namespace the mount's root is a subfolder of the hierarchy."""
    mount = tmp_path / "memory"
    (mount / "job").mkdir(parents=True)
    (mount / "job" / "cgroup.procs").write_text("")
    (tmp_path / "pids" / "job").mkdir(parents=True)
    (tmp_path / "pids" / "job" / "cgroup.procs").write_text("")
    info = mountinfo([(str(mount), "/machine/box", "cgroup", "memory"), (str(tmp_path / "pids"), "/", "cgroup", "pids")])
    hierarchy = cgroups.detect(info, "4:memory:/machine/box/job\n5:pids:/job\n", wanted="v1")
    assert hierarchy.bases["memory"] == mount / "job"
    assert cgroups.detect(info, "4:memory:/elsewhere\n5:pids:/job\n", wanted="v1") is None


def test_none_is_asked_for_or_nothing_is_writable(tmp_path):
    info, member, _ = fake_v2(tmp_path)
    assert cgroups.detect(info, member, wanted="none") is None
    assert cgroups.detect("", "", wanted="auto") is None


def test_groups_of_runs_that_are_gone_are_swept(tmp_path):
    info, member, base = fake_v2(tmp_path)
    hierarchy = cgroups.detect(info, member, wanted="v2")
    stale, ours, foreign = (base / f"attnkit-{DEAD_PID}-3", base / f"attnkit-{os.getpid()}-1", base / "attnkit-init")
    for folder in (stale, ours, foreign):
        folder.mkdir()
        (folder / "cgroup.procs").write_text("")
    assert hierarchy.sweep() == []
    assert not stale.exists() and ours.exists() and foreign.exists()
    # a dead pid of another pid namespace (another container on the same cgroup tree) is not ours to judge
    elsewhere = base / f"attnkit-{DEAD_PID}-1-ns1"
    elsewhere.mkdir()
    assert hierarchy.sweep() == [] and elsewhere.exists()
    here = base / f"attnkit-{DEAD_PID}-2-ns{cgroups.pid_namespace()}"
    here.mkdir()
    assert hierarchy.sweep() == [] and not here.exists()


# ------------------------------------------------------------------------------------------------
# real v1 cgroups (root on a legacy hierarchy)

REAL = cgroups.detect(wanted="auto")
needs_real = pytest.mark.skipif(REAL is None or REAL.kind != "v1",
                                reason="no writable v1 memory+pids hierarchy here (root on a legacy cgroup setup)")
MODES = ["landlock"] + (["bwrap"] if bwrap_works()[0] else [])


def ours_on_host() -> set[str]:
    return {str(base / e.name) for base in set(REAL.bases.values()) for e in os.scandir(base)
            if cgroups.NAME.match(e.name) and e.name.split("-")[1] == str(os.getpid())}


def load(child, code: str, seconds: float = 30) -> dict:
    return child.request({"op": "load", "module": "probe", "filename": "probe.py", "cells": [code]}, seconds)


@needs_real
@pytest.mark.parametrize("mode", MODES)
def test_a_child_over_its_memory_is_stopped_and_told_and_a_classmate_is_not(mode, monkeypatch):
    monkeypatch.setenv(cgroups.VARIABLE, "v1")
    limits = SandboxLimits(group_memory_bytes=192 * MIB)  # far under the address-space limit: the group stops it
    server = ForkServer(SandboxConfig(isolation=mode, allow_weak=True, limits=limits))
    server.start()
    try:
        hog = server.spawn()
        assert hog.group is not None and len(hog.group.pids()) == 1  # in its group before any student code
        with pytest.raises(ChildFailure) as failure:
            load(hog, "block = bytearray(512 << 20)\nprint('still here')")
        assert failure.value.kind == "memory"
        assert "more memory than a student's limit (0.19 GiB" in str(failure.value)
        assert ours_on_host() == set()  # its group went with it
        classmate = server.spawn()
        reply = load(classmate, "block = bytearray(64 << 20)\nfor i in range(0, len(block), 4096): block[i] = 1\n"
                                "print('fine')")
        assert reply["ok"] and "fine" in reply["stdout"]
        peak = classmate.group.usage().peak_bytes
        assert peak >= 64 * MIB  # what student code touched was charged to the student's group
        assert classmate.group.usage().oom_kills == 0
        classmate.close()
    finally:
        server.close()
    assert ours_on_host() == set()


def test_without_a_cgroup_the_child_is_bounded_by_its_address_space(monkeypatch):
    """The bound is on top of the child's own size, whatever the grading process's: a long-lived grader (a test
    worker, a notebook) can be gigabytes larger than the warm zygote, and that must not become the student's."""
    monkeypatch.setenv(cgroups.VARIABLE, "none")
    reserved = mmap.mmap(-1, 4 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0),
                         prot=0)  # PROT_NONE: 4 GiB of address space in this process, no memory
    server = ForkServer(SandboxConfig(isolation="landlock", allow_weak=True,
                                      limits=SandboxLimits(memory_bytes=256 * MIB, group_memory_bytes=64 * MIB)))
    server.start()
    try:
        child = server.spawn()
        assert child.group is None
        reply = load(child, "try:\n    block = bytearray(512 << 20)\nexcept MemoryError:\n    print('refused')")
        assert reply["ok"] and "refused" in reply["stdout"]
        child.close()
    finally:
        server.close()
        reserved.close()
    assert REAL is None or ours_on_host() == set()


HOLDER = textwrap.dedent("""
    import os, sys
    sys.stdin.readline()  # moved into the group first
    made = refused = 0
    for _ in range(10):
        try:
            pid = os.fork()
        except BlockingIOError:
            refused += 1
            continue
        if pid == 0:
            sys.stdin.readline()
            os._exit(0)
        made += 1
    print(made, refused, flush=True)
    sys.stdin.readline()  # stays, with its children, until killed
""")


@needs_real
def test_the_pids_limit_refuses_forks_beyond_it():
    group = REAL.create(cgroups.GroupLimits(memory_bytes=256 * MIB, processes=4))
    process = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        for fd in group.open_procs():
            os.write(fd, str(process.pid).encode())
            os.close(fd)
        process.stdin.write("go\n")
        process.stdin.flush()
        made, refused = map(int, process.stdout.readline().split())
        assert (made, refused) == (3, 7)  # itself and three children: the limit of four
        assert len(group.pids()) == 4
    finally:
        process.kill()
        process.wait()
        left = group.remove()  # kills the children still waiting in it
    assert left == [] and not any(folder.exists() for folder in group.folders)


@needs_real
def test_a_group_left_by_a_killed_run_is_removed_at_the_next_start():
    leftover = [base / f"attnkit-{DEAD_PID}-1" for base in set(REAL.bases.values())]
    for folder in leftover:
        folder.mkdir()
    REAL.prepare()
    assert not any(folder.exists() for folder in leftover)


def test_two_hierarchies_in_one_process_never_share_a_group_name(tmp_path):
    """One fork server per assignment in one grading process: each has its own Hierarchy, and one's cleanup
    must never remove the other's live group (the child's move then failed with ENODEV)."""
    info, member, base = fake_v2(tmp_path)
    first, second = (cgroups.detect(info, member, wanted="v2") for _ in range(2))
    names = {first.create(cgroups.GroupLimits(1 << 30, 4)).folders[0].name for _ in range(3)}
    names |= {second.create(cgroups.GroupLimits(1 << 30, 4)).folders[0].name for _ in range(3)}
    assert len(names) == 6


@needs_real
@pytest.mark.parametrize("restart", [False, True], ids=["never-started", "dead"])
def test_a_fork_server_started_by_the_spawn_itself_moves_the_child_into_a_live_group(restart, monkeypatch):
    """The first spawn starts a fork server that was never started (or replaces a dead one): the start must
    come before the child's group is made, else the restart's cleanup removes that group and the child's
    move fails with ENODEV (every student's grading then stopped as a machine problem)."""
    monkeypatch.setenv(cgroups.VARIABLE, "v1")
    server = ForkServer(SandboxConfig(isolation="landlock", allow_weak=True))
    try:
        if restart:
            server.start()
            server.spawn().close()
            server.process.kill()
            server.process.wait()
        child = server.spawn()
        assert child.group is not None and len(child.group.pids()) == 1
        assert load(child, "print('in its group')")["ok"]
        child.close()
    finally:
        server.close()
    assert ours_on_host() == set()

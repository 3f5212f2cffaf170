"""Kernel confinement of one student process: Landlock, a seccomp filter and capabilities.

Runs in the freshly forked child before any student code, in every isolation mode (inside
bubblewrap it is defence in depth; without namespaces it is the sandbox). The parent imports this
module too, to ask which Landlock ABI the kernel offers.

- Landlock (Linux 5.13+, unprivileged): the child may read and execute only the Python
  installation, the system's libraries and the harness; write only its private scratch folder;
  bind or connect no TCP port (ABI 4+); signal no process and reach no abstract unix socket outside
  its own domain (ABI 6+). Landlock also keeps ptrace, /proc/<pid>/mem and process_vm_* away from
  every process outside the domain (all ABIs).
- seccomp: no socket() at all (the child's own socket is already open; socketpair stays), no
  io_uring, no ptrace, process_vm_*, open_by_handle_at, kcmp, bpf, perf, keyrings or mounts, no new
  namespaces; kill/tgkill/tkill/rt_sig*queueinfo/pidfd_open only towards the child itself (or its
  process group), whatever the Landlock ABI. No new process or thread at all (clone, fork, vfork;
  clone3 answers ENOSYS so that the C library falls back to clone, which is refused): the student's
  code is one process, which its rlimits bound. prlimit64, setpriority, sched_set*, ioprio_set and
  migrate/move_pages only on the child itself. No System V IPC, POSIX message queues, inotify or
  fanotify. No links, device nodes, fifos, whiteouts, bound socket names, extended attributes or fallocate;
  every call that makes a name waits for the fork server, which counts them (quota.py).
"""
from __future__ import annotations

import ctypes
import os
import platform
import stat

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

# Landlock (include/uapi/linux/landlock.h). The three syscalls have the same number on every arch.
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
FS_MAKE_SYM, FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
# Never granted anywhere: symbolic links, fifos, sockets and device nodes (metadata without file data)
NEVER = FS_MAKE_SYM | FS_MAKE_FIFO | FS_MAKE_SOCK | FS_MAKE_CHAR | FS_MAKE_BLOCK
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV  # what a file rule may hold


def fs_rights(abi: int) -> int:
    """Every filesystem right the kernel's ABI knows: all are handled, so all are denied by default."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock(read: list[str], write: list[str], abi: int) -> None:
    """Restrict this process (and everything it starts) to reading `read` and writing `write`.
    Paths that do not exist are skipped. Requires no_new_privs. Raises OSError on failure."""
    handled = fs_rights(abi)
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, rights in ((read, READ), (write, handled & ~NEVER)):
            for path in paths:
                _allow(int(ruleset), path, rights & handled)
        if _libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        if _libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule),
                         ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------------------
# seccomp

class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


# Per machine: audit arch, whether x32 numbers must be refused, and the syscall numbers used below.
_ARCH = {
    "x86_64": (0xC000003E, True, dict(
        socket=41, io_uring_setup=425, io_uring_enter=426, io_uring_register=427, ptrace=101,
        process_vm_readv=310, process_vm_writev=311, open_by_handle_at=304, pidfd_getfd=438,
        pidfd_send_signal=424, kcmp=312, bpf=321, perf_event_open=298, userfaultfd=323, keyctl=250, add_key=248,
        request_key=249, unshare=272, setns=308, mount=165, umount2=166, pivot_root=155, chroot=161,
        open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442,
        kill=62, rt_sigqueueinfo=129, tgkill=234, tkill=200, rt_tgsigqueueinfo=297, pidfd_open=434,
        clone=56, clone3=435, fork=57, vfork=58,
        shmget=29, shmat=30, shmctl=31, shmdt=67, semget=64, semop=65, semctl=66, semtimedop=220, msgget=68,
        msgsnd=69, msgrcv=70, msgctl=71, mq_open=240, inotify_init=253, inotify_init1=294, fanotify_init=300,
        prlimit64=302, setpriority=141, sched_setparam=142, sched_setscheduler=144, sched_setaffinity=203,
        sched_setattr=314, migrate_pages=256, move_pages=279, ioprio_set=251,
        symlink=88, symlinkat=266, link=86, linkat=265, mknod=133, mknodat=259, setxattr=188, lsetxattr=189,
        fsetxattr=190, setxattrat=463, fallocate=285, mkdir=83, mkdirat=258, creat=85, open=2, openat=257,
        openat2=437, seccomp=317, renameat2=316, bind=49)),
    "aarch64": (0xC00000B7, False, dict(
        socket=198, io_uring_setup=425, io_uring_enter=426, io_uring_register=427, ptrace=117,
        process_vm_readv=270, process_vm_writev=271, open_by_handle_at=265, pidfd_getfd=438,
        pidfd_send_signal=424, kcmp=272, bpf=280, perf_event_open=241, userfaultfd=282, keyctl=219, add_key=217,
        request_key=218, unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, chroot=51,
        open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442,
        kill=129, rt_sigqueueinfo=138, tgkill=131, tkill=130, rt_tgsigqueueinfo=240, pidfd_open=434,
        clone=220, clone3=435,
        shmget=194, shmat=196, shmctl=195, shmdt=197, semget=190, semop=193, semctl=191, semtimedop=192,
        msgget=186, msgsnd=189, msgrcv=188, msgctl=187, mq_open=180, inotify_init1=26, fanotify_init=262,
        prlimit64=261, setpriority=140, sched_setparam=118, sched_setscheduler=119, sched_setaffinity=122,
        sched_setattr=274, migrate_pages=238, move_pages=239, ioprio_set=30,
        symlinkat=36, linkat=37, mknodat=33, setxattr=5, lsetxattr=6, fsetxattr=7, setxattrat=463, fallocate=47,
        mkdirat=34, openat=56, openat2=437, seccomp=277, renameat2=276, bind=200)),
}
DENIED = ("socket", "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv",
          "process_vm_writev", "open_by_handle_at", "pidfd_getfd", "pidfd_send_signal", "kcmp", "bpf",
          "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "unshare", "setns", "mount",
          "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
          "mount_setattr",
          # No new process or thread: the student's code is one process, bounded by its own rlimits
          # (RLIMIT_AS counts per process: a forked tree would hold many times the limit).
          "clone", "fork", "vfork",
          # System V IPC and POSIX message queues outlive the process (a channel to the next student);
          # inotify and fanotify would watch files the child can name but not read.
          "shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl", "semtimedop", "msgget", "msgsnd",
          "msgrcv", "msgctl", "mq_open", "inotify_init", "inotify_init1", "fanotify_init",
          # Metadata that costs disk blocks or tmpfs pages without a byte of file data (which RLIMIT_FSIZE
          # does not count): links (a long target is a block each; a hard link only grows a folder), device
          # nodes and fifos, extended attributes, and blocks reserved by fallocate with FALLOC_FL_KEEP_SIZE
          # (the file's size stays 0, so RLIMIT_FSIZE never sees them). Student code has no need of any.
          "symlink", "symlinkat", "link", "linkat", "mknod", "mknodat", "setxattr", "lsetxattr", "fsetxattr",
          "setxattrat", "fallocate",
          # bind() names a socket in a folder (a socketpair's socket can be bound); socket() is refused already
          "bind")
# Refused when a flag is set in an argument: renameat2's RENAME_WHITEOUT leaves a new inode (a whiteout device)
# where the name was, so renaming one file back and forth would make inodes without end.
DENIED_IF_FLAGS = {"renameat2": (4, 1 << 2)}  # name: (argument, flags)
# Calls that make a new name (a folder, a file, an unnamed O_TMPFILE inode): each one is counted by the fork
# server (quota.py) and refused with EDQUOT past the child's allowance, so the folders and empty files a child
# may make are bounded in number, whatever the file system under its scratch folder.
COUNTED = ("mkdir", "mkdirat", "creat", "openat2")      # every call (openat2's flags are behind a pointer)
COUNTED_IF_CREATING = {"open": 1, "openat": 2}           # only with O_CREAT or O_TMPFILE in this argument
CREATING_FLAGS = 0o100 | 0o20000000                      # O_CREAT | __O_TMPFILE (the same on both machines)


def folder_calls(machine: str | None = None) -> frozenset[int]:
    """Numbers of the calls that make a folder (mkdir, mkdirat) on this machine: counted apart (quota.py)."""
    numbers = _ARCH.get(machine or platform.machine(), (0, False, {}))[2]
    return frozenset(numbers[name] for name in ("mkdir", "mkdirat") if name in numbers)
SIGNALS_BY_PID = ("kill", "rt_sigqueueinfo")             # pid, -pgid or 0
SIGNALS_BY_TGID = ("tgkill", "tkill", "rt_tgsigqueueinfo", "pidfd_open")  # first argument must be us
# Limits, scheduling and memory placement of a process named by its first argument: only 0 (itself) or us.
SELF_BY_ARG0 = ("prlimit64", "sched_setparam", "sched_setscheduler", "sched_setaffinity", "sched_setattr",
                "migrate_pages", "move_pages")
PRIO_PROCESS, IOPRIO_WHO_PROCESS = 0, 1  # setpriority / ioprio_set: (which, who): only a process, 0 or us

_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _EPERM, _ENOSYS, _EDQUOT = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38, 0x00050000 | 122
_USER_NOTIF = 0x7FC00000
_NR, _ARCH_OFF, _ARG0, _ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (args' low halves, little endian)
_ARGS = (_ARG0, _ARG1, 32, 40, 48)


def seccomp_program(own_pid: int, machine: str | None = None,
                    counted: bool = True) -> list[tuple[int, int, int, int]] | None:
    """The filter as BPF instructions, with this process's pid built in; None on an unknown machine.
    `counted`: calls that make a name go to the fork server's count (a user notification); without it they
    are refused outright with EDQUOT (no new name at all)."""
    spec = _ARCH.get(machine or platform.machine())
    if spec is None:
        return None
    audit_arch, refuse_x32, nr = spec
    code: list = []  # items: (op, true label or offset, false label or offset, k)

    def jump(op, k, true, false):
        code.append((op, true, false, k))

    code.append((_LD, 0, 0, _ARCH_OFF))
    jump(_JEQ, audit_arch, 0, "deny")
    code.append((_LD, 0, 0, _NR))
    if refuse_x32:
        jump(_JGE, 0x40000000, "deny", 0)
    for name in DENIED:
        if name in nr:  # fork, vfork and inotify_init exist on some machines only
            jump(_JEQ, nr[name], "deny", 0)
    jump(_JEQ, nr["clone3"], "enosys", 0)
    for name in COUNTED:
        if name in nr:  # mkdir and creat exist on some machines only
            jump(_JEQ, nr[name], "count", 0)
    for name in COUNTED_IF_CREATING:
        if name in nr:
            jump(_JEQ, nr[name], f"flags_{name}", 0)
    for name in DENIED_IF_FLAGS:
        jump(_JEQ, nr[name], f"deny_if_{name}", 0)
    for name in SIGNALS_BY_PID:
        jump(_JEQ, nr[name], "by_pid", 0)
    for name in SIGNALS_BY_TGID:
        jump(_JEQ, nr[name], "by_tgid", 0)
    for name in SELF_BY_ARG0:
        jump(_JEQ, nr[name], "self_arg0", 0)
    jump(_JEQ, nr["setpriority"], "prio", 0)
    jump(_JEQ, nr["ioprio_set"], "ioprio", 0)
    code.append((_RET, 0, 0, _ALLOW))  # everything else
    code.append(("label", "by_pid"))
    code.append((_LD, 0, 0, _ARG0))
    jump(_JEQ, own_pid, "allow", 0)
    jump(_JEQ, (-own_pid) & 0xFFFFFFFF, "allow", 0)
    jump(_JEQ, 0, "allow", "deny")
    code.append(("label", "prio"))
    code.append((_LD, 0, 0, _ARG0))
    jump(_JEQ, PRIO_PROCESS, "who", "deny")
    code.append(("label", "ioprio"))
    code.append((_LD, 0, 0, _ARG0))
    jump(_JEQ, IOPRIO_WHO_PROCESS, "who", "deny")
    code.append(("label", "who"))
    code.append((_LD, 0, 0, _ARG1))
    jump(_JEQ, 0, "allow", 0)
    jump(_JEQ, own_pid, "allow", "deny")
    code.append(("label", "self_arg0"))
    code.append((_LD, 0, 0, _ARG0))
    jump(_JEQ, 0, "allow", 0)
    code.append(("label", "by_tgid"))
    code.append((_LD, 0, 0, _ARG0))
    jump(_JEQ, own_pid, "allow", "deny")
    for name, argument in COUNTED_IF_CREATING.items():
        if name in nr:
            code.append(("label", f"flags_{name}"))
            code.append((_LD, 0, 0, _ARGS[argument]))
            jump(_JSET, CREATING_FLAGS, "count", "allow")
    for name, (argument, flags) in DENIED_IF_FLAGS.items():
        code.append(("label", f"deny_if_{name}"))
        code.append((_LD, 0, 0, _ARGS[argument]))
        jump(_JSET, flags, "deny", "allow")
    code.append(("label", "allow"))  # BPF jumps only forward: the verdicts come last
    code.append((_RET, 0, 0, _ALLOW))
    code.append(("label", "deny"))
    code.append((_RET, 0, 0, _EPERM))
    code.append(("label", "enosys"))
    code.append((_RET, 0, 0, _ENOSYS))
    code.append(("label", "count"))
    code.append((_RET, 0, 0, _USER_NOTIF if counted else _EDQUOT))
    # resolve labels into relative jumps
    program, positions = [], {}
    for item in code:
        if item[0] == "label":
            positions[item[1]] = len(program)
        else:
            program.append(item)
    labels = positions
    resolved = []
    for index, (op, true, false, k) in enumerate(program):
        def offset(target):
            if isinstance(target, int):
                return target
            distance = labels[target] - index - 1
            assert 0 <= distance < 256, (target, distance)
            return distance
        resolved.append((op, offset(true), offset(false), k) if op in (_JEQ, _JGE, _JSET) else (op, 0, 0, k))
    return resolved


def _program(own_pid: int, counted: bool) -> _SockFprog | None:
    program = seccomp_program(own_pid, counted=counted)
    if program is None:
        return None
    filters = (_SockFilter * len(program))(*[_SockFilter(*op) for op in program])
    fprog = _SockFprog(len(program), filters)
    fprog.keep = filters  # the array must live as long as the structure that points to it
    return fprog


def install_seccomp(own_pid: int, counted: bool = True) -> int | None:
    """Install the filter. With `counted`, returns the listener of its user notifications (the fork server
    answers them: quota.py); where the kernel gives no listener (another filter above already has one, a
    kernel before 5.5), the calls that make a name are refused outright and None is returned. None too
    on an unknown machine (no filter)."""
    SECCOMP_SET_MODE_FILTER, FLAG_NEW_LISTENER = 1, 1 << 3
    if counted:
        fprog = _program(own_pid, counted=True)
        if fprog is None:
            return None
        listener = _libc.syscall(ctypes.c_long(_ARCH[platform.machine()][2]["seccomp"]),
                                 ctypes.c_uint(SECCOMP_SET_MODE_FILTER), ctypes.c_uint(FLAG_NEW_LISTENER),
                                 ctypes.byref(fprog))
        if listener >= 0:
            return int(listener)
    fprog = _program(own_pid, counted=False)
    if fprog is None:
        return None
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    ok = _libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog),
                     ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0
    if not ok:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")
    return None


# ------------------------------------------------------------------------------------------------
# capabilities

CAP_DAC_READ_SEARCH = 2
PR_SET_KEEPCAPS = 8
_CAP_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def set_capabilities(keep: int | None) -> None:
    """Leave this process exactly one capability (`keep`, effective and permitted), or none at all."""
    header = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()
    if keep is not None:
        data[keep // 32].effective = data[keep // 32].permitted = 1 << (keep % 32)
    if _libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def become(uid: int, keep_read_search: bool) -> None:
    """As root: switch to `uid`, keeping at most CAP_DAC_READ_SEARCH (so that a Python installation
    under a 0700 folder such as /root stays readable; Landlock still limits what may be read)."""
    if keep_read_search:
        _libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if keep_read_search:
        _libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
        set_capabilities(CAP_DAC_READ_SEARCH)

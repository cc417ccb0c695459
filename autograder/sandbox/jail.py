"""Shut a submission's process into namespaces of its own before any of its code runs.

The grader compiles this file once per run, beside the import view (`sandbox.view.code_file`),
and the student process (or the zygote it is forked from) runs that code first, as root, with
the standard library only (it must never import `autograder`). It is the isolation the grader
uses when it runs as root on Linux; `sandbox.jail_support` decides.

    T  the process the grader started; stays in the grader's namespaces, in the submission's
       cgroups, and waits. Its exit status mirrors the submission's.
    I  pid 1 of a new PID, mount, network, IPC and UTS namespace, still root: builds the
       submission's file system (a small tmpfs with read-only binds of the system, the Python
       installation and the import view; nothing else of the machine), mounts a /proc that shows
       only the namespace, forks S and waits. When I exits, the kernel kills every process left
       in the namespace, so nothing a submission starts can outlive it.
    S  the submission: chrooted, with no capabilities, under a user id of its own (so it cannot
       signal, trace or read any other process of the machine), no network, a process-count
       limit and no way to gain privileges. `enter` returns in S only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
DENIED_CALLS = (
    # the kernel keyrings, shared by every user of the machine
    "add_key", "keyctl", "request_key",
    # namespaces, mounts and the root: the jail's walls
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_by_handle_at",
    "name_to_handle_at", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
    # other processes' memory, and tracing
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # the machine's clock, name, modules, kernel, swap and accounting
    "clock_adjtime", "clock_settime", "settimeofday", "adjtimex", "stime", "sethostname",
    "setdomainname", "init_module", "finit_module", "delete_module", "create_module",
    "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "quotactl",
    "quotactl_fd", "syslog", "vhangup", "iopl", "ioperm", "lookup_dcookie", "nfsservctl",
    "uselib", "get_kernel_syms", "query_module", "sysfs", "_sysctl", "ustat",
    # kernel interfaces with a history of privilege escalations
    "bpf", "perf_event_open", "userfaultfd", "fanotify_init", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "personality", "migrate_pages", "move_pages",
    "mbind", "set_mempolicy", "get_mempolicy",
)  # fmt: skip
"""Denied with EPERM inside the jail, after Docker's default seccomp profile."""
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                   0x40000000)  # fmt: skip
"""CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: clone() with any is denied."""
DEVICES = ("null", "zero", "full", "random", "urandom")
HOME = "/home/student"

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno() or abs(result)
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    encode = lambda text: None if text is None else os.fsencode(text)  # noqa: E731
    result = _libc.mount(encode(source), encode(target), encode(kind), flags, encode(data or None))
    _check(result, f"mount {source} on {target}")


def enter(config: dict) -> None:
    """Become S, the jailed submission; the other two processes never return from here.

    `config` (plain data from the grader): root (an empty directory to build the file system
    in), tmpfs_mb, binds (paths bound read-only at the same place), links ([path, target] for
    top-level symbolic links such as /bin -> usr/bin), masks (paths inside the binds to hide),
    copies ({path inside the jail: path outside, read before the namespaces close}), cgroups
    (directories whose cgroup.procs T joins), nproc, uid_base.
    """
    for directory in config.get("cgroups", []):
        with open(os.path.join(directory, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))
    uid = config["uid_base"] + os.getpid()  # unique among the processes alive now
    files = {path: _read(source) for path, source in config.get("copies", {}).items()}
    _check(
        _libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS),
        "unshare",
    )
    seccomp = _seccomp_library() if config.get("seccomp") else None
    keep = config.get("keep_fds", [])
    init = os.fork()
    if init:
        _close(keep)
        _wait_and_mirror(init)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _build_root(config, uid, files)
    student = os.fork()
    if student:
        _close(keep)
        _init_loop(student)
    _drop_privileges(uid, config.get("nproc", 64))
    if config.get("seccomp"):
        _filter_system_calls(seccomp)


class _ArgCmp(ctypes.Structure):
    """libseccomp's struct scmp_arg_cmp: compare argument `arg` with `op` against a and b."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64),
                ("b", ctypes.c_uint64)]  # fmt: skip


def _seccomp_library():
    """libseccomp, loaded while the machine's libraries are still in reach (before chroot)."""
    try:
        return ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as error:
        raise OSError(f"the syscall filter needs libseccomp.so.2: {error}") from None


def _filter_system_calls(library) -> None:
    """Deny `DENIED_CALLS`, clone() into new namespaces and clone3 (which glibc then replaces
    by clone) to this process and everything it starts. Allowed calls are unaffected."""
    library.seccomp_init.restype = ctypes.c_void_p
    context = ctypes.c_void_p(library.seccomp_init(ctypes.c_uint32(0x7FFF0000)))  # ALLOW
    if not context.value:
        raise OSError("seccomp_init failed")
    denied = ctypes.c_uint32(0x00050000 | 1)  # SCMP_ACT_ERRNO(EPERM)
    try:
        for name in DENIED_CALLS:
            number = library.seccomp_syscall_resolve_name(name.encode())
            if number >= 0:  # a call this architecture does not have cannot be made either
                _check(-library.seccomp_rule_add_array(context, denied, number, 0, None), name)
        clone = library.seccomp_syscall_resolve_name(b"clone")
        for flag in NAMESPACE_FLAGS:
            condition = _ArgCmp(0, 7, flag, flag)  # SCMP_CMP_MASKED_EQ: (flags & flag) == flag
            _check(
                -library.seccomp_rule_add_array(context, denied, clone, 1, ctypes.byref(condition)),
                "clone",
            )
        clone3 = library.seccomp_syscall_resolve_name(b"clone3")
        if clone3 >= 0:
            no_such_call = ctypes.c_uint32(0x00050000 | 38)  # ENOSYS
            _check(
                -library.seccomp_rule_add_array(context, no_such_call, clone3, 0, None), "clone3"
            )
        _check(-library.seccomp_load(context), "seccomp_load")
    finally:
        library.seccomp_release(context)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _close(fds: list[int]) -> None:
    """T and I must not hold the submission's pipes: the grader reads EOF when S dies."""
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _build_root(config: dict, uid: int, files: dict[str, bytes]) -> None:
    root = config["root"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={config['tmpfs_mb']}m,mode=755")
    inside = lambda path: os.path.join(root, path.lstrip("/"))  # noqa: E731
    for path, target in config.get("links", []):
        os.symlink(target, inside(path))
    read_only = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
    for path in config.get("binds", []):
        target = inside(path)
        if os.path.isdir(path):
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, "a").close()
        _mount(path, target, None, MS_BIND | MS_REC)
        for mounted in [target, *_mounts_below(target)]:  # a read-only bind is not recursive
            _mount(None, mounted, None, read_only)
    for path in config.get("masks", []):
        target = inside(path)
        if os.path.isdir(target):
            _mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=555")
        elif os.path.exists(target):
            _mount("/dev/null", target, None, MS_BIND)
    os.makedirs(inside("/dev"), exist_ok=True)
    for name in DEVICES:
        device = inside(f"/dev/{name}")
        open(device, "a").close()
        _mount(f"/dev/{name}", device, None, MS_BIND)
    for name, number in (("stdin", 0), ("stdout", 1), ("stderr", 2)):
        os.symlink(f"/proc/self/fd/{number}", inside(f"/dev/{name}"))
    os.symlink("/proc/self/fd", inside("/dev/fd"))
    os.makedirs(inside("/proc"), exist_ok=True)
    _mount("proc", inside("/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.makedirs(inside("/tmp"), exist_ok=True)
    os.chmod(inside("/tmp"), 0o1777)
    os.makedirs(inside(HOME), exist_ok=True)
    for path, data in files.items():
        os.makedirs(os.path.dirname(inside(path)), exist_ok=True)
        with open(inside(path), "wb") as handle:
            handle.write(data)
    for directory, _, names in os.walk(inside(HOME)):
        for name in [directory, *(os.path.join(directory, n) for n in names)]:
            os.chown(name, uid, uid)
    os.chdir(root)
    os.chroot(".")
    os.chdir(HOME)


def _mounts_below(target: str) -> list[str]:
    """The mount points strictly below `target` in this mount namespace, outermost first."""
    below = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            point = line.split()[4]
            for escaped, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"),
                                  ("\\134", "\\")):  # fmt: skip
                point = point.replace(escaped, char)
            if point.startswith(target.rstrip("/") + "/"):
                below.append(point)
    return sorted(set(below), key=len)


def _drop_privileges(uid: int, nproc: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # from root to another user: every capability is dropped
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _init_loop(student: int) -> None:
    """pid 1: reap every process of the namespace; leave with the submission's status."""
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == student:
            os._exit(_encode(status))


def _wait_and_mirror(init: int) -> None:
    """T: wait for pid 1, then end the way the submission ended (exit code or signal)."""
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except InterruptedError:
            continue
    code = _encode(status)
    if code > 128 and code - 128 in signal.valid_signals():
        number = code - 128
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP have no handler
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(code)


def _encode(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


if __name__ == "__main__":  # the probe: `python jail.py CONFIG_JSON PATH` says who it became
    import json

    enter(json.loads(sys.argv[1]))
    keyring = ctypes.CDLL(None, use_errno=True).syscall(250, 0, 0, 0, 0, 0)  # keyctl on x86-64
    filtered = keyring == -1 and ctypes.get_errno() == 1 if os.uname().machine == "x86_64" else ""
    print(os.getuid(), os.getpid(), os.path.exists(sys.argv[2]), filtered)

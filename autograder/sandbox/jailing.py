"""Whether and how submissions are jailed (see jail.py), and their cgroups."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

from autograder.sandbox.limits import Limits
from autograder.sandbox.view import JAIL, JAIL_HOME, hidden_site_entries, mplconfig_for

UID_BASE = 1_000_000  # + the pid of the submission's first process: one user per submission


_SUPPORT: dict[str, tuple[bool, str]] = {}


class IsolationError(Exception):
    """`isolation="jail"` was asked for on a machine that cannot provide it."""


def use_jail(limits: Limits) -> bool:
    if limits.isolation == "process":
        return False
    works, reason = jail_support()
    if not works and limits.isolation == "jail":
        raise IsolationError(f"the jail cannot be used here: {reason}")
    return works


def jail_support() -> tuple[bool, str]:
    """Whether submissions can be jailed here, and why not; probed once per process.

    The probe jails a bare interpreter and checks that it came out as pid 2 of its own
    namespace, under a user id that is not root, seeing the jail's file system only.
    """
    with _SUPPORT_LOCK:  # one probe, even when a run's threads ask together (SECCOMP is set)
        if "result" in _SUPPORT:
            return _SUPPORT["result"]
        if sys.platform != "linux" or os.geteuid() != 0:
            result = (False, "it needs Linux and root (namespaces, mounts, chroot, another uid)")
        else:
            result = _probe_jail()
        _SUPPORT["result"] = result
        return result


_SUPPORT_LOCK = threading.Lock()


def _probe_jail() -> tuple[bool, str]:
    """Jail a bare interpreter, with the syscall filter if libseccomp can be had, else without
    (`SECCOMP` records which); say what the jail is made of, or why it cannot be used."""
    failure = ""
    for seccomp in (True, False):
        SECCOMP[0] = seccomp
        works, reason = _probe_once()
        if works:
            return True, "namespaces, chroot, a user of its own" + (
                f", {_named(cgroup_roots())} cgroups" if cgroup_roots() else ""
            ) + (", a syscall filter" if seccomp else ", no syscall filter (no libseccomp)")
        failure = failure or reason
    SECCOMP[0] = False
    return False, failure


SECCOMP = [False]
"""Whether jailed submissions get the syscall filter (jail.DENIED_CALLS): the probe decides."""


def _probe_once() -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="autograder-probe-") as scratch:
        config = jail_config(None, Path(scratch), Limits(), [])
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", "-B", str(JAIL), json.dumps(config), scratch],
                cwd=scratch, capture_output=True, text=True, timeout=30,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as error:
            return False, f"the probe did not run: {error}"
    words = done.stdout.split()
    if done.returncode != 0 or len(words) not in (3, 4):
        lines = (done.stderr.strip() or f"exit code {done.returncode}").splitlines()
        return False, f"the probe failed: {lines[-1]}"
    if words[0] == "0" or words[1] != "2" or words[2] != "False":
        return False, f"the probe was not isolated (uid, pid, sees the host: {words})"
    if SECCOMP[0] and words[3:] == ["False"]:
        return False, "the syscall filter was loaded but did not deny keyctl"
    return True, ""


def jail_config(view: Path | None, workdir: Path, limits: Limits, cgroups: list[str]) -> dict:
    """What the jail is made of: the system and the Python installation, read-only, the
    import view, and nothing else of the machine (not the repository, not --out, not TMPDIR)."""
    links, binds, masks, copies = _jail_layout(view)
    root = workdir / "jail"
    root.mkdir(exist_ok=True)
    return {
        "root": str(root),
        "tmpfs_mb": limits.disk_mb,
        "links": links,
        "binds": binds,
        "masks": masks,
        "copies": copies,
        "cgroups": cgroups,
        "nproc": limits.processes,
        "uid_base": UID_BASE,
        "seccomp": SECCOMP[0],
    }


@functools.cache
def _jail_layout(view: Path | None) -> tuple[list, list, list, dict]:
    """The parts of `jail_config` that are the same for every submission of a run."""
    links, binds = [], ["/usr", "/etc"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            links.append([top, os.readlink(top)])
        elif os.path.isdir(top):
            binds.append(top)
    prefix = os.path.realpath(sys.base_prefix)
    sites = sorted({os.path.realpath(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")})
    masks = []
    if not prefix.startswith("/usr/"):
        binds.append(prefix)
    base_site = os.path.realpath(sysconfig.get_paths(vars={"base": prefix})["purelib"])
    if os.path.isdir(base_site) and base_site not in sites:
        masks.append(base_site)
    copies = {}
    if view is not None:
        binds += [site for site in sites if not site.startswith(prefix + "/")]
        binds.append(str(view))
        masks += [str(path) for path in hidden_site_entries()]
        for font_cache in sorted(mplconfig_for(view).glob("fontlist-*.json")):
            copies[f"{JAIL_HOME}/.config/matplotlib/{font_cache.name}"] = str(font_cache)
    return links, binds, masks, copies


RUN_ID = [os.getpid()]
"""The pid of the grading command: every cgroup and scratch folder of its run is named after
it, so that it can remove them whatever becomes of its workers, and a later run can remove
those of a run that was killed (`sweep`)."""


def start_run() -> None:
    """Mark this process as the grading command whose run the names carry."""
    RUN_ID[0] = os.getpid()


@functools.cache
def cgroup_roots() -> dict[str, Path]:
    """This process's own cgroup directories of `CONTROLLERS` (cgroup v1), where writable."""
    roots = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in CONTROLLERS:
            directory = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            if controller in controllers.split(",") and os.access(directory, os.W_OK):
                roots[controller] = directory
    return roots


CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "cpuset", "freezer")


CPU_PERIOD_US = 100_000


def _named(roots: dict) -> str:
    """ "memory, process and CPU share" for the controllers in `roots`."""
    names = {"memory": "memory", "pids": "process", "cpu": "CPU share", "cpuacct": "CPU time",
             "cpuset": "CPU set", "freezer": "freezer"}  # fmt: skip
    found = [names[controller] for controller in CONTROLLERS if controller in roots]
    return ", ".join(found[:-1]) + " and " + found[-1] if len(found) > 1 else "".join(found)


def make_cgroups(job: str, limits: Limits, cpu: int | None = None) -> list[str]:
    """The cgroups of one submission, so that its limits cover every process it starts:
    memory, processes, at most one CPU's worth of time at the same weight as any other
    submission, and, when the grading thread holds a CPU, that CPU only (a submission that
    re-pins its processes to every CPU still cannot reach its neighbours'). [] where cgroups
    cannot be made (the per-process limits still apply)."""
    made = []
    settings = {
        "memory": {"memory.limit_in_bytes": limits.memory_mb * 1024 * 1024,
                   "memory.swappiness": 0},
        "pids": {"pids.max": limits.processes},
        "cpu": {"cpu.shares": 1024, "cpu.cfs_period_us": CPU_PERIOD_US,
                "cpu.cfs_quota_us": CPU_PERIOD_US},
        "cpuset": {"cpuset.mems": None, "cpuset.cpus": None if cpu is None else str(cpu)},
        "cpuacct": {},  # cpu.py reads a contest move's CPU time here
        "freezer": {},  # StudentProcess.pause: a contest agent does not think on others' time
    }  # fmt: skip
    for controller, root in cgroup_roots().items():
        directory = root / f"autograder-{RUN_ID[0]}-{job}"
        try:
            directory.mkdir()
            made.append(str(directory))
            for name, value in settings[controller].items():
                if value is None:  # a cpuset must name its memory nodes and CPUs: the parent's
                    value = (root / name).read_text().strip()
                if (directory / name).exists():
                    (directory / name).write_text(str(value))
        except OSError:
            continue
    return made


def remove_cgroups(directories: list[str]) -> None:
    """Remove a finished submission's cgroups once the kernel has emptied them."""
    deadline = time.monotonic() + 2.0
    for directory in directories:
        while True:
            try:
                os.rmdir(directory)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.001)  # the jail's last processes are usually gone within 10 ms

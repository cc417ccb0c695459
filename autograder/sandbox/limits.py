"""What one submission may use, and the records of its calls: plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Limits:
    """What one submission may use. `timeout` is seconds per graded call of the submission's
    own time (CPU, or asleep; never waiting for a CPU: `pipe.WALL_SAFETY`)."""

    timeout: float = 10.0
    load_timeout: float = 30.0
    load_cpu_seconds: float | None = None  # CPU seconds of the submission's processes a load
    # may use (None: not counted); the contest's agents have such a cap, graded calls do not
    budget: float = 120.0  # seconds of own time for all of a submission's calls; a third each
    # function (own time as `timeout`'s: a busy machine does not spend it)
    cpu_seconds: int = 300
    memory_mb: int = 2048
    output_kb: int = 256
    processes: int = 64
    disk_mb: int = 64
    isolation: str = "auto"  # "jail" (required), "process", or "auto" (the jail where possible)
    run_as: int | None = None  # without the jail, the user id (and group) a root grader uses


@dataclass
class CallOutcome:
    """What came back from one call of a student's function, as plain data."""

    status: str  # "returned", "raised", "timeout", "overrun", "crashed", "skipped"
    value: Any = None
    error: str = ""
    where: str = (
        ""  # a raised call: where in the student's code, "function (code cell N, line L): the line"
    )
    states_generated: int = 0
    generated: list = field(default_factory=list)
    seconds: float = 0.0  # wall-clock time
    own_seconds: float = 0.0  # its own time (CPU, or asleep; `pipe.WALL_SAFETY`): `--budget`
    carried: int = 0  # positions of earlier calls the search met and did not search (see Tokens)


@dataclass
class LoadReport:
    """How loading the submission's cells went."""

    status: str  # "loaded", "timeout", "crashed"
    cell_errors: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    error: str = ""


class SandboxError(Exception):
    """The student process broke the protocol, died or ran out of time."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


def _resource_limits(limits: Limits) -> dict[str, tuple[int, int]]:
    memory = limits.memory_mb * 1024 * 1024
    output = limits.output_kb * 1024
    return {
        "RLIMIT_AS": (memory, memory),
        "RLIMIT_CPU": (limits.cpu_seconds, limits.cpu_seconds + 5),
        "RLIMIT_FSIZE": (output, output),
        "RLIMIT_CORE": (0, 0),
    }


def _limiting_code(limits: Limits) -> str:
    """The first statements the student process runs, before the jail and any student code.

    Set there rather than in a `preexec_fn`, which would make every start fork the whole
    grader process instead of using vfork.
    """
    settings = "".join(
        f"r.setrlimit(r.{name}, {value!r}); " for name, value in _resource_limits(limits).items()
    )
    return (
        "import resource as r, signal, ctypes; "
        "ctypes.CDLL(None).prctl(1, 9, 0, 0, 0); "  # PR_SET_PDEATHSIG: die with the grader
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "  # an over-long write fails, no kill
        f"{settings}del r, signal, ctypes; "
    )

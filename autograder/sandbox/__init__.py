"""Run one submission in its own process, with limits, serving it games it cannot tamper with.

One job per module: `limits` (what a submission may use, the records of its calls), `view`
(what it may import), `jailing` (the jail and its cgroups), `reaping` (nothing outlives a run),
`pinning` (a CPU per call), `holding` (a contest agent held between its moves), `output` (what
a submission prints), `wire` (the protocol with runner.py), `tokens` (states served as tokens,
one per position for a whole run), `zygote_client` (forking jailed submissions), `process` (a
running submission) and `bounded` (the grader's own code run on a submission's content in a
capped child).
"""

from __future__ import annotations

from autograder.sandbox.jailing import (  # noqa: F401
    _SUPPORT,
    CONTROLLERS,
    CPU_PERIOD_US,
    RUN_ID,
    SECCOMP,
    UID_BASE,
    IsolationError,
    _jail_layout,
    _named,
    _probe_jail,
    _probe_once,
    cgroup_roots,
    jail_config,
    jail_support,
    make_cgroups,
    remove_cgroups,
    start_run,
    use_jail,
)
from autograder.sandbox.limits import (  # noqa: F401
    CallOutcome,
    Limits,
    LoadReport,
    SandboxError,
    _limiting_code,
    _resource_limits,
)
from autograder.sandbox.pinning import (  # noqa: F401
    _claim_a_cpu,
    _claim_two_free_cpus,
    _pin_to_a_free_cpu,
    _unpin,
)
from autograder.sandbox.process import StudentProcess  # noqa: F401
from autograder.sandbox.reaping import (  # noqa: F401
    _ACTIVE,
    _ACTIVE_LOCK,
    _STALE,
    _SUBREAPER,
    _alive,
    _kill_cgroup,
    _reap_locked,
    _run_entries,
    become_subreaper,
    die_with_parent,
    is_subreaper,
    kill_marked,
    reap_orphans,
    sweep,
)
from autograder.sandbox.view import (  # noqa: F401
    _FONT_CACHE,
    HIDDEN_PACKAGES,
    JAIL,
    JAIL_HOME,
    MARKER,
    RUNNER,
    ZYGOTE,
    _bootstrap,
    _environment,
    _hidden_entry,
    _ignore_caches,
    _standard_library_paths,
    build_import_view,
    code_file,
    hidden_site_entries,
    mplconfig_for,
    start_font_cache,
)
from autograder.sandbox.wire import (  # noqa: F401
    _CHILD,
    _CHILDREN,
    _CHILDREN_SIZE,
    _LENGTH,
    _REQUEST,
    _REQUEST_FRAME,
    _REQUEST_HEAD,
    _REQUEST_TAG,
    _TOKEN_BATCH,
    _TOKEN_INDEX,
    MAX_MESSAGE,
    _child,
    _info,
    _json_message,
    _random_tokens,
)
from autograder.sandbox.zygote_client import Zygote, ZygoteChild, ZygoteError  # noqa: F401

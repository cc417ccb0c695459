"""One running submission: load its cells once, then call its functions on served games."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from autograder.sandbox.holding import Holding
from autograder.sandbox.jailing import jail_config, make_cgroups, remove_cgroups, use_jail
from autograder.sandbox.limits import (
    CallOutcome,
    Limits,
    LoadReport,
    SandboxError,
    _limiting_code,
    _resource_limits,
)
from autograder.sandbox.output import Output
from autograder.sandbox.pinning import _pin_to_a_free_cpu, _unpin
from autograder.sandbox.pipe import PipeEnds, _poller, without_collection
from autograder.sandbox.reaping import _ACTIVE, _ACTIVE_LOCK, kill_marked, reap_orphans, wait_killed
from autograder.sandbox.tokens import Tokens
from autograder.sandbox.view import (
    JAIL,
    RUNNER,
    _bootstrap,
    _environment,
    code_file,
    is_jailed_view,
)
from autograder.sandbox.wire import (
    _AGAIN_TAG,
    _REQUEST,
    _REQUEST_FRAME,
    _REQUEST_HEAD,
    _REQUEST_TAG,
    _TOKEN_INDEX,
    _info,
    _json_message,
    loaded_report,
    positions_named,
    served_again,
)
from autograder.sandbox.zygote_client import Zygote
from games.protocol import Game


class StudentProcess(PipeEnds, Holding):
    """One running submission: load its cells once, then call its functions on served games."""

    def __init__(self, cells: list, wanted: list[str], view: Path, limits: Limits) -> None:
        self.cells = cells
        self.wanted = wanted
        self.view = view
        self.limits = limits
        # In the run's scratch folder, which the grading command removes on every exit.
        self.workdir = Path(tempfile.mkdtemp(prefix="student-", dir=view.parent))
        self.process: subprocess.Popen | None = None
        self._buffer = b""
        self.job = os.urandom(12).hex()
        self.cgroups: list[str] = []
        self.jailed = False
        self._pinned: tuple[int, set[int], socket.socket | None] | None = None
        self._write_fd: int | None = None
        self._read_fd: int | None = None
        self._output: Output | None = None  # what the submission prints: see `start`
        self.paused = False
        self.tokens = Tokens()  # one token per position for the process's whole life

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> LoadReport:
        """Start the process and run the submission's cells. Never raises, except
        IsolationError when the jail is required (`isolation="jail"`) and cannot be had."""
        self.jailed = use_jail(self.limits)
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        if self._output is None:  # kept until close(): a restarted process prints after it
            # In the grader's scratch folder, never in the working folder, which may be the
            # submission's (a link there would make root read or append to what it points at).
            self._output = Output(self.view.parent, self.limits.output_kb * 1024)
        output = self._output.pipe()  # the child's stdout: write-only, read by the grader
        if self._pinned is None:  # kept until close(), through restarts
            self._pinned = _pin_to_a_free_cpu()
        try:
            config = None
            if not self.jailed and is_jailed_view(self.view):
                raise RuntimeError(
                    "this import view links no site-packages: it is for the jail only"
                )
            if self.jailed:
                cpu = None if self._pinned is None else self._pinned[0]
                self.cgroups = make_cgroups(self.job, self.limits, cpu)
                config = jail_config(self.view, self.workdir, self.limits, self.cgroups)
            self.process = None
            zygote = Zygote.for_view(self.view) if self.jailed else None
            if zygote is not None:
                self.process = zygote.spawn(
                    {
                        "workdir": str(self.workdir),
                        "jail": config,
                        "limits": _resource_limits(self.limits),
                        "cpu": None if self._pinned is None else self._pinned[0],
                    },
                    [to_child_read, from_child_write, output],
                )
            if self.process is None:
                self.process = self._start_interpreter(
                    config, [to_child_read, from_child_write], output
                )
        finally:
            for fd in (to_child_read, from_child_write, output):
                os.close(fd)
        self._write_fd, self._read_fd = to_child_write, from_child_read
        self._buffer = b""
        wall = self._limit_call(self.limits.load_timeout, self.limits.load_cpu_seconds, None)
        deadline = time.monotonic() + wall  # the load is limited as a graded call: own time
        try:
            load = {"op": "load", "cells": self.cells, "wanted": self.wanted}
            self._send(load, deadline, "loading")
            reply = self._receive(deadline, "loading")
            report = loaded_report(reply, self.wanted)
        except SandboxError as error:
            report = LoadReport(status=error.status, error=str(error))
        finally:
            self._cpu_cap = None
        if report.status != "loaded":
            self.stop()
        return report

    def _start_interpreter(self, config: dict | None, fds: list[int], output) -> subprocess.Popen:
        """Start the submission's process as a fresh interpreter: without the jail, or if the
        zygote cannot be had."""
        to_child_read, from_child_write = fds
        jail = ""
        if config is not None:
            config = dict(config, keep_fds=fds)
            jail = (
                "jail = {'__name__': 'jail'}; "
                f"exec(load({str(code_file(self.view, JAIL))!r}), jail); "
                f"jail['enter']({config!r}); del jail; "
            )
        bootstrap = (
            _bootstrap(self.view)
            + "sys.argv = sys.argv[1:]; "
            + _limiting_code(self.limits)
            + f"runner = load({str(code_file(self.view, RUNNER))!r}); "
            + jail
            + "exec(runner, {'__name__': '__main__'})"
        )
        command = [
            sys.executable, "-I", "-S", "-B", "-u", "-c", bootstrap,
            "_grader_runner.py", str(to_child_read), str(from_child_write),
        ]  # fmt: skip
        # Registered under the lock the reaper holds, so a reaper in another thread never
        # mistakes a process that has just started for an orphan.
        with _ACTIVE_LOCK:
            process = subprocess.Popen(
                command,
                cwd=self.workdir,
                env=_environment(self.view, self.workdir, config is not None, self.job),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                pass_fds=fds,
                start_new_session=True,
                **self._unprivileged(),
            )
            _ACTIVE.add(process.pid)
        return process

    def _unprivileged(self) -> dict:
        """Popen's arguments that run the submission as `limits.run_as`, if set (a root grader
        without the jail must not run student code as root)."""
        user = self.limits.run_as
        if user is None:
            return {}
        # From here the working folder is the submission's: the grader opens nothing in it by
        # name (the output file is elsewhere, without one) and only removes it, in `close`. Its
        # own name cannot be swapped: the scratch folder that holds it is the grader's.
        os.chown(self.workdir, user, user)
        os.chmod(self.view.parent, 0o711)  # the view and the runner's code, nothing to list
        return {"user": user, "group": user, "extra_groups": []}

    def stop(self) -> None:
        """Kill the process and everything it started, even what left its session."""
        if self.paused:
            self.resume()  # a frozen process does not die until it is thawed
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            wait_killed(self.process)
            with _ACTIVE_LOCK:
                _ACTIVE.discard(self.process.pid)
            self.process = None
            remove_cgroups(self.cgroups)
            self.cgroups = []
            if not self.jailed:  # without a PID namespace, descendants must be found one by one
                kill_marked(self.job)
            reap_orphans()
        for fd in ("_write_fd", "_read_fd"):
            if getattr(self, fd, None) is not None:
                os.close(getattr(self, fd))
                setattr(self, fd, None)

    def close(self) -> None:
        """Stop the process and delete its working directory."""
        self.stop()
        _unpin(self._pinned)
        self._pinned = None
        if self._output is not None:
            self._output.close()
            self._output = None
        # Through descriptors, never following a link the submission left there (on Linux:
        # shutil.rmtree.avoids_symlink_attacks).
        shutil.rmtree(self.workdir, ignore_errors=True)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def output(self, limit: int = 4000) -> str:
        """The first `limit` bytes the submission printed, as text ("" once closed)."""
        return "" if self._output is None else self._output.text(limit)

    # -- calls --------------------------------------------------------------------------

    def call(
        self,
        function: str,
        game: Game,
        state: Any,
        args: tuple = (),
        evaluate=None,
        record: bool = False,
        max_states: int = 10**9,
        timeout: float | None = None,
        evaluate_argument: bool = True,
        state_budget: int | None = None,
        cpu_seconds: float | None = None,
        seed: str | None = None,
        meter=None,
    ) -> CallOutcome:
        """Call `function(game, state, *args[, evaluate])` in the student process.

        `timeout`, when given, replaces `limits.timeout` for this call. With `evaluate_argument`
        false, `evaluate` is served as `game.evaluate(state)` only, not passed as the last
        argument (a Connect Four agent's signature has no evaluation). A contest's move has a
        `state_budget` (past it, `result` raises `games.OutOfStates` in the search, which goes
        on), `cpu_seconds` (past them, in the submission's processes, read on `meter` if given,
        the call is a time-out: `timeout` is only a safety net) and, at a game's start, a `seed`
        for `random.seed`. The student's search receives a proxy of `game`; every child it asks
        for is generated here and counted. The process is killed on a time-out or a broken
        protocol; the caller may start it again for the next call.

        States are values, as the protocol promises: a position has one random token in every
        call of this process's life (`self.tokens`), so a transposition finds the same state and
        a table kept between calls finds its positions again, as on the real game. A call asks
        only for states sent in it (`served`: token -> `tokens.Entry`). `outcome.carried`
        counts the positions of earlier calls it answered without a search."""
        started = time.monotonic()
        seconds = self.limits.timeout if timeout is None else timeout
        deadline = started + self._limit_call(seconds, cpu_seconds, meter)
        outcome = CallOutcome(status="crashed")
        info, tokens = _info(game, state, evaluate), self.tokens
        root, served = tokens.start_call(state, info[1], tokens.served_table(game, evaluate))
        parents: set[int] = set()
        names, most = (served, parents, self.tokens), (max_states, state_budget)
        try:
            self._send(
                {
                    "op": "call",
                    "function": function,
                    "root": root,
                    "info": info,
                    "args": list(args),
                    "evaluate": evaluate is not None and evaluate_argument,
                    "players": getattr(game, "players", None),
                    "seed": seed,
                    "limit": max_states if state_budget is None else min(most),
                },
                deadline,
            )
            message = self._serve(game, evaluate, names, outcome, record, deadline, most)
            op = message.get("op")
            if op == "return":
                outcome.status, outcome.value = "returned", message.get("value")
                if type(outcome.value) is int and outcome.value in self.tokens.states:
                    outcome.value = {"state": "returned"}  # a token: a state, not an action
            elif op == "raised":
                outcome.status = "raised"
                error = str(message.get("error", ""))[:2000]
                outcome.error = positions_named(error, self.tokens.states, game)
                outcome.where = str(message.get("where", ""))[:400]
            else:
                raise SandboxError("crashed", "the submission sent a message out of protocol")
        except SandboxError as error:
            outcome.status, outcome.error = error.status, str(error)
            self.stop()
        finally:
            outcome.seconds = time.monotonic() - started
            outcome.own_seconds = self._end_call(outcome)
            carried = self.tokens.carried(function, served, parents, args, game.result)
            searched = not args or args[0] >= 1  # depth 0 expands nothing: it carries nothing
            outcome.carried = carried if outcome.status == "returned" and searched else 0
        return outcome

    @without_collection()
    def _serve(
        self,
        game: Game,
        evaluate,
        names: tuple[dict, set, Tokens],
        outcome: CallOutcome,
        record: bool,
        deadline: float,
        most: tuple[int, int | None] = (10**9, None),
    ) -> dict:
        """Answer the student's `result` requests until it sends anything else; return that.

        One turn of this loop per state the student's search generates, so it is kept short:
        a request is usually all one read brings, and a child asked for before from the same
        parent is its entry's link (`Tokens.served_table`: the whole frame kept, one list
        look-up), else `Tokens.child` computes its entry once; it is counted, and recorded,
        every time, as are the requests the runner answered again itself (`served_again`).
        `parents` gets each state a child is asked of. `names` is (served, parents, tokens);
        `most` is (max_states, state_budget), as `call` was given."""
        served, parents, tokens = names
        table = tokens.served_table(game, evaluate)  # the call's, as `call` started it
        new_child, generated, count = tokens.child, outcome.generated if record else None, 0
        read, write, monotonic, read_fd, write_fd = os.read, os.write, time.monotonic, *self._fds()
        head, whole, unpack_request = _REQUEST_HEAD, _REQUEST_FRAME, _TOKEN_INDEX.unpack_from
        limit = most[0] if most[1] is None else min(most)
        check_at = self._checkpoint(deadline)
        wait, again = _poller(read_fd), partial(served_again, names, table, generated, outcome)
        try:
            while True:
                buffer = self._buffer
                if not buffer:
                    now = monotonic()
                    if now >= check_at:
                        check_at = self._checkpoint(deadline)
                    try:  # sharing the grader's CPU, the student has usually asked again
                        buffer = read(read_fd, 65536)
                    except BlockingIOError:
                        buffer = self._when_ready(wait, deadline, check_at - now)
                        if buffer is None:
                            continue
                    except OSError:  # the pipe broke: the long way says how
                        buffer = self._read(deadline, "the call")
                    if not buffer:
                        raise SandboxError("crashed", self._death_message())
                if len(buffer) >= whole and buffer.startswith(head):
                    token, index = unpack_request(buffer, 5)
                    self._buffer = buffer[whole:]
                else:  # a request cut in two, requests answered again, or the last message
                    self._buffer = buffer
                    payload = self._frame(deadline, "the call")
                    if payload[0] == _AGAIN_TAG:  # they count as requests: the room shrinks
                        limit -= again(payload, limit - count)
                        continue
                    if len(payload) != _REQUEST.size or payload[0] != _REQUEST_TAG:
                        return _json_message(payload)
                    _, token, index = _REQUEST.unpack(payload)
                found = served.get(token)
                if found is None or index >= len(found[1]):
                    self._send("the grader refused a request for an unknown state", deadline)
                    continue
                if count >= limit:
                    self._refuse(most, deadline)
                    continue
                parents.add(token)
                child = found[2][index]
                if child is None:
                    child = new_child(table, found, index)
                count += 1
                if generated is not None:
                    generated.append(child[0])
                served[child[4]] = child
                frame = child[3]
                try:
                    written = write(write_fd, frame)
                except OSError:  # the pipe is full, or broken: the long way says which
                    written = 0
                if written < len(frame):
                    self._write(frame[written:], deadline, "the call")
        finally:
            outcome.states_generated += count

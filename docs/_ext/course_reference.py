"""Reference tables built from the grader's own data, so a rule's points are never typed twice.

Directives (used in docs/reference/*.md):

- ``rules-table``: one row per rule of an assignment (argument: its name in
  ``autograder.grading.rules.ASSIGNMENT_RULES``), with its points and functions;
- ``groups-table``: the same rules, one row per group of instances and its points;
- ``assignments-table``: every assignment, its rules and their total;
- ``contest-table``: Assignment 5's rules with their opponents, games, floors and targets;
- ``limits-table``: the sandbox's default limits per submission.

`rows_*` functions return plain rows (lists of strings), which tests/test_docs.py compares
with the built pages.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import NoReturn

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx


def _points(value: float) -> str:
    return f"{value:g}"


def rows_rules(assignment: str) -> list[list[str]]:
    """Rule id, points, what it judges, the functions called: one row per rule."""
    from autograder.grading.rules import ASSIGNMENT_RULES, selected_rules

    return [
        [rule.id, _points(rule.points), rule.description, ", ".join(rule.functions)]
        for rule in selected_rules(ASSIGNMENT_RULES[assignment])
    ]


def rows_groups(assignment: str) -> list[list[str]]:
    """Rule id, group, function, instances, points: one row per group of instances."""
    from autograder.grading.rules import ASSIGNMENT_RULES, selected_rules

    return [
        [rule.id, group.name, group.function, str(len(group.instances)), _points(group.points)]
        for rule in selected_rules(ASSIGNMENT_RULES[assignment])
        for group in rule.groups
    ]


def rows_assignments() -> list[list[str]]:
    """Assignment, its rules, their total points."""
    from autograder.contest.levels import IN_TIME_POINTS, LEVELS
    from autograder.contest.positions import POSITIONS_POINTS
    from autograder.grading.rules import ASSIGNMENT_RULES, PLAYED_RULE_IDS, total_points

    played = sum(level.points for level in LEVELS) + IN_TIME_POINTS + POSITIONS_POINTS
    rows = []
    for name, rule_ids in ASSIGNMENT_RULES.items():
        total = played if rule_ids == PLAYED_RULE_IDS else total_points(rule_ids)
        rows.append([name, ", ".join(rule_ids), _points(total)])
    return rows


def rows_contest() -> list[list[str]]:
    """Rule id, points, opponent, games (or positions), floor and target shares."""
    from autograder.contest.levels import IN_TIME_POINTS, IN_TIME_RULE, LEVELS
    from autograder.contest.positions import (
        POSITIONS,
        POSITIONS_FLOOR,
        POSITIONS_POINTS,
        POSITIONS_RULE,
        POSITIONS_TARGET,
    )

    def share(value: float) -> str:
        return f"{value * 100:g}%"

    rows = [
        [
            level.rule_id,
            _points(level.points),
            level.name,
            f"{len(level.games)} games",
            share(level.floor),
            share(level.target),
        ]
        for level in LEVELS
    ]
    rows.append(
        [
            POSITIONS_RULE,
            _points(POSITIONS_POINTS),
            "the exact solver's verdict on each position",
            f"{len(POSITIONS)} positions",
            share(POSITIONS_FLOOR),
            share(POSITIONS_TARGET),
        ]
    )
    games = sum(len(level.games) for level in LEVELS)
    rows.append(
        [
            IN_TIME_RULE,
            _points(IN_TIME_POINTS),
            "the games above in which every move was legal and in time",
            f"{games} games",
            share(0.0),
            share(1.0),
        ]
    )
    return rows


def rows_limits() -> list[list[str]]:
    """Limit, default, the option that changes it."""
    from autograder.contest.opponents import GRADING
    from autograder.sandbox.limits import Limits

    limits = Limits()
    return [
        ["seconds of its own time per graded call", _points(limits.timeout), "--timeout"],
        [
            "seconds of its own time to load a submission's cells (three times a call's)",
            _points(limits.load_timeout),
            "",
        ],
        ["seconds of own time for all of a submission's calls", _points(limits.budget), "--budget"],
        ["CPU seconds per submission", str(limits.cpu_seconds), ""],
        ["memory per submission (MiB)", str(limits.memory_mb), "--memory"],
        ["output kept (KiB)", str(limits.output_kb), ""],
        ["processes", str(limits.processes), ""],
        ["scratch disk (MiB)", str(limits.disk_mb), ""],
        ["contest: states a move may generate", f"{GRADING.states:,}", "--move-states"],
        ["contest: CPU seconds a move may use", _points(GRADING.seconds), "--move-seconds"],
        ["contest: wall-clock safety net of a move (s)", _points(GRADING.safety_net), ""],
    ]


def autograder_parser() -> argparse.ArgumentParser:
    """The parser of `python -m autograder` (`autograder.cli.build_parser`), for sphinx-argparse,
    with the defaults read from the building machine (`--workers`: its number of cores) said in
    words, so the page does not show the build machine's 2 as everyone's default."""
    from autograder.cli import build_parser

    parser = build_parser()
    cores = os.cpu_count() or 1
    for sub in _subparsers(parser):
        for action in sub._actions:
            if action.dest == "workers" and action.default == cores:
                action.default = "the number of cores"
    _texts_as_code(parser)
    return parser


_CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_OPTION = re.compile(r"(?<![\w`-])(--[a-z][a-z0-9-]*)")


def _as_code(text: str) -> str:
    """`text` (a help text, in reStructuredText) with its `names` and its --options as code: the
    site's typography would make an option's two dashes one, and `names` would be citations."""
    parts = _CODE_SPAN.sub(r"``\1``", text).split("``")
    parts[::2] = [_OPTION.sub(r"``\1``", part) for part in parts[::2]]  # outside the code
    return "``".join(parts)


def _texts_as_code(parser: argparse.ArgumentParser) -> None:
    """`_as_code` on every help text, description and epilog (not one shown verbatim)."""
    for each in [parser, *_subparsers(parser)]:
        each.description = each.description and _as_code(each.description)
        if each.epilog and not each.epilog.startswith("::"):
            each.epilog = _as_code(each.epilog)
        for action in each._actions:
            action.help = action.help and _as_code(action.help)
            for choice in getattr(action, "_choices_actions", ()):  # a subcommand's own help
                choice.help = choice.help and _as_code(choice.help)


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    return [
        sub
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for sub in action.choices.values()
    ]


class _Parsed(Exception):
    """Carries the parser `games.__main__.main` built, out of it, before it parses anything."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__("parser built")
        self.parser = parser


def games_parser() -> argparse.ArgumentParser:
    """The parser of `python -m games`, for sphinx-argparse.

    `games.__main__.main` builds its parser inside the function, so it is caught at its
    `parse_args` call instead of being rebuilt here (a rebuilt copy could drift from it).
    """
    from games.__main__ import main

    def stop(parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> NoReturn:
        raise _Parsed(parser)

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = stop  # type: ignore[method-assign]
    try:
        main([])
    except _Parsed as caught:
        _verbatim_epilogs(caught.parser)
        _texts_as_code(caught.parser)
        return caught.parser
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    raise RuntimeError("python -m games built no parser")


def _verbatim_epilogs(parser: argparse.ArgumentParser) -> None:
    """Show an epilog laid out by hand (RawDescriptionHelpFormatter) as a literal block, as the
    terminal shows it, rather than as reStructuredText, which its indented examples are not."""
    for sub in _subparsers(parser):
        if sub.epilog and sub.formatter_class is argparse.RawDescriptionHelpFormatter:
            indented = "\n".join("    " + line for line in sub.epilog.splitlines())
            sub.epilog = "::\n\n" + indented


def _table(header: list[str], rows: list[list[str]], classes: str, code: int = 0) -> nodes.table:
    """A docutils table of plain text cells; column `code` is shown as code (as typed: an
    option's two dashes stay two)."""
    table = nodes.table(classes=[classes])
    group = nodes.tgroup(cols=len(header))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in header)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    for cells, part in [(header, head)] + [(row, body) for row in rows]:
        line = nodes.row()
        for index, text in enumerate(cells):
            entry = nodes.entry()
            as_code = index == code and part is body and text
            inline = nodes.literal(text=text) if as_code else nodes.Text(text)
            entry += nodes.paragraph("", "", inline)
            line += entry
        part += line
    return table


class _TableDirective(Directive):
    """A table from one of the `rows_*` functions, with a fixed header."""

    optional_arguments = 1
    header: list[str] = []
    code_column = 0  # the column shown as code

    def rows(self) -> list[list[str]]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        return [_table(self.header, self.rows(), f"course-{self.name}", self.code_column)]


class RulesTable(_TableDirective):
    required_arguments = 1
    optional_arguments = 0
    header = ["rule id", "points", "what it judges", "functions called"]

    def rows(self) -> list[list[str]]:
        return rows_rules(self.arguments[0])


class GroupsTable(_TableDirective):
    required_arguments = 1
    optional_arguments = 0
    header = ["rule id", "group", "function", "instances", "points"]

    def rows(self) -> list[list[str]]:
        return rows_groups(self.arguments[0])


class AssignmentsTable(_TableDirective):
    header = ["assignment", "rules", "points"]

    def rows(self) -> list[list[str]]:
        return rows_assignments()


class ContestTable(_TableDirective):
    header = ["rule id", "points", "against", "played", "floor", "target"]

    def rows(self) -> list[list[str]]:
        return rows_contest()


class LimitsTable(_TableDirective):
    header = ["limit", "default", "option"]
    code_column = 2

    def rows(self) -> list[list[str]]:
        return rows_limits()


def _section_names(app: Sphinx, what: str, name: str, obj: object, options, lines: list[str]):
    """Let napoleon see "Raises (at construction):" as the Raises section it is."""
    for index, line in enumerate(lines):
        if line.strip() == "Raises (at construction):":
            lines[index] = line.replace("Raises (at construction):", "Raises:")


def setup(app: Sphinx) -> dict[str, object]:
    """Register the directives, and a docstring fix that runs before napoleon's."""
    app.connect("autodoc-process-docstring", _section_names, priority=400)
    for name, directive in (
        ("rules-table", RulesTable),
        ("groups-table", GroupsTable),
        ("assignments-table", AssignmentsTable),
        ("contest-table", ContestTable),
        ("limits-table", LimitsTable),
    ):
        app.add_directive(name, directive)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

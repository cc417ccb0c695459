"""A submission's grade record as frozen data, and its JSON form for saving and loading it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from autograder.grading.judge import Verdict


@dataclass(frozen=True)
class GroupResult:
    """A rule group's points (all of them when every instance passed, else none) and why."""

    name: str
    function: str
    points: float
    max_points: float
    verdicts: tuple[Verdict, ...] = ()

    @property
    def full(self) -> bool:
        return self.points == self.max_points

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "function": self.function,
            "points": self.points,
            "max_points": self.max_points,
            "verdicts": [verdict_to_json(verdict) for verdict in self.verdicts],
        }

    @classmethod
    def from_json(cls, data: dict) -> GroupResult:
        return cls(
            name=data["name"],
            function=data.get("function", ""),
            points=data["points"],
            max_points=data["max_points"],
            verdicts=tuple(verdict_from_json(verdict) for verdict in data.get("verdicts", ())),
        )


@dataclass(frozen=True)
class RuleResult:
    """A rule's points: the sum of its groups'; `diagnosis` names the one mistake that explains
    a function's failed instances ("" if none does)."""

    id: str
    description: str
    points: float
    max_points: float
    groups: tuple[GroupResult, ...] = ()
    diagnosis: str = ""

    @property
    def full(self) -> bool:
        return self.points == self.max_points

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "description": self.description,
            "points": self.points,
            "max_points": self.max_points,
            "groups": [group.to_json() for group in self.groups],
            "diagnosis": self.diagnosis,
        }

    @classmethod
    def from_json(cls, data: dict) -> RuleResult:
        return cls(
            id=data["id"],
            description=data.get("description", ""),
            points=data["points"],
            max_points=data["max_points"],
            groups=tuple(GroupResult.from_json(group) for group in data.get("groups", ())),
            diagnosis=data.get("diagnosis", ""),
        )


@dataclass(frozen=True)
class GradeRecord:
    """Everything grading one submission found: what ran, each rule's points, and the total.

    `digest` identifies the files graded ("" when the grader itself failed, so that the next
    run grades them again); `status` is "graded" unless something kept the submission from
    being graded normally; `seconds` is the only field that differs between two gradings.
    `flags` are for the instructor's pages alone (class.html), never a student's: what the
    contest noticed about how an agent used its allowance (`autograder.contest.integrity`).
    """

    student: str
    status: str
    score: float
    max_score: float
    files: tuple[str, ...] = ()
    digest: str = ""
    messages: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    output: str = ""
    rules: tuple[RuleResult, ...] = ()
    seconds: float = 0.0
    flags: tuple[str, ...] = ()

    def verdicts(self) -> Iterator[Verdict]:
        """Every verdict, rule by rule and group by group."""
        for rule in self.rules:
            for group in rule.groups:
                yield from group.verdicts

    def to_json(self) -> dict:
        """Plain JSON data, in the layout results.json has always had (`extra_data.record`);
        "flags" only when there are some."""
        data = {
            "student": self.student,
            "files": list(self.files),
            "digest": self.digest,
            "status": self.status,
            "messages": list(self.messages),
            "functions": list(self.functions),
            "output": self.output,
            "rules": [rule.to_json() for rule in self.rules],
            "score": self.score,
            "max_score": self.max_score,
            "seconds": self.seconds,
        }
        return {**data, "flags": list(self.flags)} if self.flags else data

    @classmethod
    def from_json(cls, data: dict) -> GradeRecord:
        """The record `to_json` gave. What a saved record lacks takes its default; data that is
        no record raises KeyError, TypeError or AttributeError."""
        return cls(
            student=data["student"],
            status=data["status"],
            score=data["score"],
            max_score=data["max_score"],
            files=tuple(data.get("files", ())),
            digest=data.get("digest", ""),
            messages=tuple(data.get("messages", ())),
            functions=tuple(data.get("functions", ())),
            output=data.get("output", ""),
            rules=tuple(RuleResult.from_json(rule) for rule in data.get("rules", ())),
            seconds=data.get("seconds", 0.0),
            flags=tuple(data.get("flags", ())),
        )


_VERDICT_FIELDS = tuple(field.name for field in fields(Verdict))
_STATE_FIELDS = ("visited", "reference_visited")  # tuples of states, which JSON makes lists


def verdict_to_json(verdict: Verdict) -> dict:
    """A verdict as plain JSON data (its fields in order, states as lists)."""
    data = verdict.to_dict()
    for name in _STATE_FIELDS:
        data[name] = _as_lists(data[name])
    return data


def verdict_from_json(data: dict) -> Verdict:
    """The verdict `verdict_to_json` gave; texts a saved verdict lacks are empty."""
    known = {"instance": "", "expected": "", "got": ""}
    known.update((name, value) for name, value in data.items() if name in _VERDICT_FIELDS)
    for name in _STATE_FIELDS:
        known[name] = _as_tuples(known.get(name, ()))
    return Verdict(**known)


def _as_lists(value: Any) -> Any:
    return [_as_lists(item) for item in value] if isinstance(value, list | tuple) else value


def _as_tuples(value: Any) -> Any:
    return tuple(_as_tuples(item) for item in value) if isinstance(value, list | tuple) else value

"""Game options (variants): how a game declares them and how given values are checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.errors import InvalidOptions

OptionKind = Literal["int", "bool", "choice"]


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game: its name, type, default and allowed values."""

    name: str
    kind: OptionKind
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        """Return the value if this option allows it; raise InvalidOptions saying why if not."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(f"option {self.name!r} must be true or false", self.name)
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(f"option {self.name!r} must be an integer", self.name)
            if self.minimum is not None and value < self.minimum:
                raise InvalidOptions(f"option {self.name!r} must be at least {self.minimum}", self.name)
            if self.maximum is not None and value > self.maximum:
                raise InvalidOptions(f"option {self.name!r} must be at most {self.maximum}", self.name)
            return value
        if value not in self.choices:
            allowed = ", ".join(self.choices)
            raise InvalidOptions(f"option {self.name!r} must be one of: {allowed}", self.name)
        return value

    def to_json(self) -> dict[str, Any]:
        """The catalog form of this option."""
        data: dict[str, Any] = {
            "name": self.name,
            "type": self.kind,
            "default": self.default,
            "description": self.description,
        }
        if self.choices:
            data["choices"] = list(self.choices)
        if self.minimum is not None:
            data["minimum"] = self.minimum
        if self.maximum is not None:
            data["maximum"] = self.maximum
        return data


@dataclass(frozen=True)
class OptionSet:
    """All options of one game."""

    specs: tuple[OptionSpec, ...] = field(default_factory=tuple)

    def resolve(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with the given values, every value checked."""
        if given is not None and not isinstance(given, dict):
            raise InvalidOptions("options must be a JSON object of option names to values")
        given = dict(given or {})
        known = {spec.name for spec in self.specs}
        unknown = sorted(set(given) - known)
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            raise InvalidOptions(f"unknown option {unknown[0]!r}; this game's options: {allowed}", unknown[0])
        return {spec.name: spec.check(given.get(spec.name, spec.default)) for spec in self.specs}

    def to_json(self) -> list[dict[str, Any]]:
        """The catalog form of every option."""
        return [spec.to_json() for spec in self.specs]

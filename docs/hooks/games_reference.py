"""The games reference, rendered from the engine's registry (`engine.registry.all_games`) and the AI levels."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference_text import cell, code, import_project, table

if TYPE_CHECKING:
    from engine.options import OptionSpec

TIMEOUT_DEFAULT = "timeout-default-action"
"""The assumption every game records for a seat whose turn timer ran out."""


def games() -> str:
    """A summary table of every registered game, then a section per game: options, levels, assumptions."""
    import_project()
    from ai.levels import levels_for
    from engine.registry import all_games

    registered = all_games()
    rows = []
    for game in registered:
        info = game.info
        rows.append(
            (
                f"[{info.name}](#{info.id}) ({code(info.id)})",
                players(info.min_players, info.max_players),
                traits(info.information, info.chance, info.cooperative, info.simultaneous),
                ", ".join(code(level) for level in levels_for(info.id)),
                str(info.rules_version),
            )
        )
    parts = [table(("game", "players", "traits", "AI levels", "rules version"), rows)]
    for game in registered:
        info = game.info
        parts.append(f"## {info.name} {{#{info.id}}}")
        parts.append(
            f"{info.summary}\n\n{code(info.id)}: {players(info.min_players, info.max_players)} players; "
            f"{traits(info.information, info.chance, info.cooperative, info.simultaneous)}; "
            f"scores from {info.min_utility:g} to {info.max_utility:g}; "
            f"{length(info.max_game_length)}; rules version {info.rules_version}."
        )
        specs = info.options.specs
        if specs:
            parts.append(
                table(("option", "type", "default", "values", "meaning"), [option_row(spec) for spec in specs])
            )
        else:
            parts.append("No options.")
        timeout = next((each for each in info.assumptions if each.id == TIMEOUT_DEFAULT), None)
        if timeout is not None:
            parts.append(f"**Turn timers.** {timeout.choice}")
        if info.cards:
            parts.append(f"Its catalog entry lists its {len(info.cards)} cards (`cards`), which its views name by id.")
        assumed = [(code(each.id), cell(each.choice), cell(each.reason)) for each in info.assumptions]
        parts.append(
            f'??? note "Its {len(assumed)} recorded assumptions"\n\n'
            + "\n".join("    " + line for line in table(("id", "choice", "reason"), assumed).splitlines())
        )
    return "\n\n".join(parts) + "\n"


def players(low: int, high: int) -> str:
    """A player count, or its range."""
    return str(low) if low == high else f"{low}-{high}"


def traits(information: str, chance: bool, cooperative: bool, simultaneous: bool) -> str:
    """What kind of game it is, in words."""
    words = [f"{information} information", "chance" if chance else "no chance"]
    words += ["co-operative"] if cooperative else []
    words += ["simultaneous moves"] if simultaneous else []
    return ", ".join(words)


def length(longest: int | None) -> str:
    """The most actions a match can take, in words."""
    return "no bound on its length" if longest is None else f"at most {longest:,} actions"


def option_row(spec: OptionSpec) -> tuple[str, str, str, str, str]:
    """An option: name, type, default, allowed values, meaning."""
    if spec.choices:
        values = ", ".join(code(str(choice)) for choice in spec.choices)
    elif spec.kind == "int":
        values = f"{spec.minimum} to {spec.maximum}"
    else:
        values = "`true`, `false`"
    default = code(str(spec.default).lower() if isinstance(spec.default, bool) else str(spec.default))
    return code(spec.name), spec.kind, default, values, cell(spec.description)

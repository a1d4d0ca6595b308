"""The environments reference, rendered from each game's `Encoding` (parlour_envs/games/) at every player count."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_text import cell, code, import_project, indent, table

if TYPE_CHECKING:
    from parlour_envs.encoding import Encoding


def environments() -> str:
    """A summary table of the five environments, then a section per game: arguments, spaces, tokens, layout."""
    import_project()
    from engine.registry import get_game
    from parlour_envs import ENVIRONMENTS, environment

    rows, sections = [], []
    for game_id, module_name in ENVIRONMENTS.items():
        game = get_game(game_id)
        assert game is not None
        info = game.info
        module = environment(game_id)
        counts = range(info.min_players, info.max_players + 1)
        encodings = {players: module.raw_env(players=players).encoding for players in counts}
        makers = ["env()", "raw_env()"] + (["parallel_env()"] if hasattr(module, "parallel_env") else [])
        rows.append(
            (
                f"[{info.name}](#{game_id})",
                code(f"parlour_envs.{module_name}"),
                ", ".join(code(maker) for maker in makers),
                f"{info.min_players}"
                if info.min_players == info.max_players
                else f"{info.min_players}-{info.max_players}",
                " / ".join(str(encodings[p].num_actions) for p in counts),
                " / ".join(str(encodings[p].observation_size) for p in counts),
            )
        )
        sections.append(section(game_id, module_name, module, encodings))
    summary = table(
        ("game", "module", "constructors", "players", "tokens (Discrete n) by players", "observation size by players"),
        rows,
    )
    return "\n\n".join([summary, *sections])


def section(game_id: str, module_name: str, module: Any, encodings: dict[int, Encoding]) -> str:
    """One game: its keyword arguments, its spaces per player count, its tokens and its observation layout."""
    smallest = min(encodings)
    encoding = encodings[smallest]
    info = encoding.game.info
    arguments = [
        (code("players"), code(str(smallest)), f"{info.min_players} to {info.max_players}"),
        (code("render_mode"), code("None"), f"{code('ansi')}: `render()` returns the table as text"),
        (code("max_actions"), "see below", "engine actions after which the episode is truncated"),
    ]
    for option in info.options.to_json():
        arguments.append((code(option["name"]), code(repr(option["default"])), cell(option["description"])))
    per_count = [
        (
            str(players),
            str(counted.num_actions),
            str(counted.max_tokens()),
            str(counted.observation_size),
            f"{counted.default_max_actions():,}",
        )
        for players, counted in encodings.items()
    ]
    offset = 0
    layout = []
    for part in encoding.layout:
        layout.append(
            (str(offset), str(part.size), code(part.name), f"{part.low:g} to {part.high:g}", cell(part.meaning))
        )
        offset += part.size
    layout.append(
        (
            str(offset),
            str(encoding.num_actions),
            code("chosen"),
            f"0 to {encoding.max_tokens()}",
            "how many times each token is among those this seat chose so far in this decision (zeros at its start)",
        )
    )
    tokens = [(str(index), cell(name)) for index, name in enumerate(encoding.token_names)]
    parallel = (
        f"\n\n{code(f'{module_name}.parallel_env()')} takes the same arguments and steps every seat at once."
        if hasattr(module, "parallel_env")
        else ""
    )
    return "\n\n".join(
        [
            f"## {info.name} {{#{game_id}}}",
            f"```python\nfrom parlour_envs import {module_name}\nenv = {module_name}.env()\n```{parallel}",
            how_actions_are_tokens(encoding),
            "Keyword arguments of `env()` and `raw_env()`:",
            table(("argument", "default", "meaning"), arguments),
            "By player count: the action space, the longest action in tokens, the observation's size and where an "
            "episode is truncated by default:",
            table(("players", "tokens", "longest action", "observation size", "default max_actions"), per_count),
            f"The observation layout ({smallest} players; sections sized by the player count grow with it):",
            table(("offset", "size", "section", "range", "meaning"), layout),
            f'??? note "The {encoding.num_actions} tokens ({smallest} players)"\n\n'
            + indent(table(("token", "meaning"), tokens)),
        ]
    )


def how_actions_are_tokens(encoding: Encoding) -> str:
    """The encoding module's own account of its tokens and choices: its docstring after the summary line."""
    import inspect

    module = inspect.getmodule(type(encoding))
    text = inspect.cleandoc(module.__doc__ or "") if module else ""
    summary, _, rest = text.partition("\n\n")
    return f"{summary}\n\n{rest}".strip()

"""The `parlour` command's reference, rendered from its argparse parser (`tournaments.cli.parser`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from reference_text import cell, code, import_project, table

HELP_WIDTH = "80"
"""Columns argparse formats usage lines to, whatever terminal builds the guide."""


def parlour_command() -> str:
    """Each subcommand of `parlour`: its usage, description, arguments and epilog."""
    import_project()
    from tournaments.cli import parser

    top = parser()
    parts = []
    with help_width():
        for name, command in subcommands(top):
            parts.append(f"## `parlour {name}` {{#{name}}}")
            parts.append(f"```\n{command.format_usage().strip()}\n```")
            if command.description:
                parts.append(command.description)
            parts.append(table(("argument", "meaning"), [argument_row(command, each) for each in shown(command)]))
            if command.epilog:
                parts.append(f"```\n{command.epilog.strip()}\n```")
    return "\n\n".join(parts) + "\n"


def subcommands(top: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The subcommands' names and parsers, in the order they were added."""
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def shown(command: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments `--help` lists, `-h` itself left out."""
    return [
        action
        for action in command._actions
        if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)
    ]


def argument_row(command: argparse.ArgumentParser, action: argparse.Action) -> tuple[str, str]:
    """One argument: how it is written, and its help with `%(default)s` filled in, its choices and group."""
    choices = "{" + ",".join(str(choice) for choice in action.choices) + "}" if action.choices else None
    if action.option_strings:
        metavar = "" if action.nargs == 0 else str(action.metavar or choices or action.dest.upper())
        written = ", ".join(f"{flag} {metavar}".strip() for flag in action.option_strings)
    else:
        written = str(action.metavar or choices or action.dest)
        if action.nargs == "+":
            written += "..."
    meaning = (action.help or "") % {**vars(action), "prog": command.prog}
    for group in command._mutually_exclusive_groups:
        if action in group._group_actions:
            others = [other.option_strings[0] for other in group._group_actions if other is not action]
            alternatives = " or ".join(others)
            meaning += f" (this or {alternatives} is required)" if group.required else f" (not with {alternatives})"
    return code(written), cell(meaning)


@contextmanager
def help_width() -> Iterator[None]:
    """argparse's help formatted to a fixed width while inside."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before

"""MkDocs hook: fill in the generated parts of the reference pages when the guide is built.

A page marks each generated part with a block that GitHub shows as a pointer to the built guide:

    <!-- generated: settings -->
    *This table is generated from ... when the guide is built.*
    <!-- /generated -->

and the build replaces the whole block with what the named generator writes from the code.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from command_reference import parlour_command
from environments_reference import environments
from games_reference import games
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from openapi_reference import SPEC_PATH, bot_stream_events, http_api, match_stream_events
from reference_text import ROOT
from settings_reference import settings

GENERATORS: dict[str, Callable[[], str]] = {
    "http-api": http_api,
    "match-stream-events": match_stream_events,
    "bot-stream-events": bot_stream_events,
    "settings": settings,
    "parlour-command": parlour_command,
    "games": games,
    "environments": environments,
}
"""Each generated part, by the name its page gives it."""

BLOCK = re.compile(r"^<!-- generated: (?P<name>[a-z-]+) -->\n.*?^<!-- /generated -->$", re.MULTILINE | re.DOTALL)
WATCHED = [
    SPEC_PATH,
    ROOT / "model" / "settings.py",
    ROOT / "tournaments" / "cli.py",
    ROOT / "engine",
    ROOT / "ai" / "levels.py",
    ROOT / "parlour_envs",
]
"""What the generated parts are read from: `mkdocs serve` rebuilds when one changes."""


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Have `mkdocs serve` watch the files the generated parts come from."""
    config.watch.extend(str(path) for path in WATCHED)
    return config


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The page with each generated block replaced by its generator's Markdown."""

    def generate(block: re.Match[str]) -> str:
        name = block["name"]
        if name not in GENERATORS:
            raise PluginError(f"{page.file.src_uri}: no generated part named {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]().strip()

    return BLOCK.sub(generate, markdown)

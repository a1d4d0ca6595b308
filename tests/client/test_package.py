"""The client and the bot runner are their own distribution: httpx alone, nothing of the server imported; the
Server-Sent Events parser reads what the standard allows."""

from __future__ import annotations

import ast
import sys
import tomllib

from parlour_client import Event
from parlour_client.sse import events

from tests.client.conftest import CLIENT_SOURCE

DISTRIBUTION = CLIENT_SOURCE.parent


def test_the_distribution_needs_httpx_only_and_imports_nothing_of_the_server() -> None:
    project = tomllib.loads((DISTRIBUTION / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == ["httpx>=0.27,<1"] and project["requires-python"] == ">=3.11"
    assert tomllib.loads((DISTRIBUTION / "pyproject.toml").read_text())["project"]["scripts"] == {
        "parlour-bot": "parlour_bot.cli:main"
    }
    imported: set[str] = set()
    for module in [*(CLIENT_SOURCE / "parlour_client").glob("*.py"), *(CLIENT_SOURCE / "parlour_bot").glob("*.py")]:
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert project["optional-dependencies"]["socket"] == ["websocket-client>=1.8,<2"]  # parlour_client.socket's
    outside = imported - set(sys.stdlib_module_names) - {"httpx", "websocket", "parlour_client", "parlour_bot"}
    assert outside == set(), "parlour_bot's LocalAI imports the server's packages by name, at run time only"
    assert (CLIENT_SOURCE / "parlour_client" / "py.typed").exists()
    assert (CLIENT_SOURCE / "parlour_bot" / "py.typed").exists()


def test_the_event_parser_skips_comments_and_retry_joins_data_lines_and_takes_crlf() -> None:
    stream = [
        "retry: 2000\n",
        "\n",
        ": heartbeat\n",
        "\n",
        "id: 7\r\n",
        "event: match\r\n",
        'data: {"a":\n',
        "data: 1}\n",
        "\n",
        "event: end\n",
        'data:{"reason":"finished"}\n',
        "\n",
        "id: 9\n",  # an unfinished event at the end of the text is dropped
    ]
    assert list(events(stream)) == [Event(7, "match", {"a": 1}), Event(None, "end", {"reason": "finished"})]

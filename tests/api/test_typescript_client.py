"""TypeScript types generated from openapi.yaml by openapi-typescript, with its default flags, compile a client.

The pinned tools (tests/api/typescript: package.json and its lock) are installed with `npm ci` into a temporary
folder, npm's cache included, so the test leaves nothing behind. openapi-typescript turns the document into
types, and `tsc --strict --noEmit` compiles `client.ts` (openapi-fetch: create a match with only what is
required, read it, post an action) and, for every request body, a check that the generated type requires
exactly what the document's `required` lists: openapi-typescript makes a property with a `default` required
(`defaultNonNullable`, on by default in 7.x), so request bodies state their defaults in words.

Without node and npm the test is skipped, unless PARLOUR_REQUIRE_NODE=1 (CI), where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.api.openapi_support import SPEC_PATH, iter_operations, load_document, resolve

TOOLS = Path(__file__).resolve().parent / "typescript"
TOOL_FILES = ("package.json", "package-lock.json", "client.ts")
TSC_FLAGS = ["--strict", "--noEmit", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler"]
TSC_FLAGS += ["--lib", "es2022,dom"]
CHECKS_PRELUDE = """\
import type { components } from "./parlour";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
"""


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder holding the pinned tools (`npm ci`) and client.ts."""
    missing = [name for name in ("node", "npm") if shutil.which(name) is None]
    if missing:
        problem = f"{' and '.join(missing)} not found (Debian: apt-get install nodejs npm)"
        if os.environ.get("PARLOUR_REQUIRE_NODE") == "1":
            pytest.fail(f"PARLOUR_REQUIRE_NODE=1 but the TypeScript client cannot be checked: {problem}", pytrace=False)
        pytest.skip(problem)
    where = tmp_path_factory.mktemp("typescript")
    for name in TOOL_FILES:
        shutil.copy(TOOLS / name, where / name)
    environment = {**os.environ, "npm_config_cache": str(where / ".npm"), "npm_config_update_notifier": "false"}
    run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], where, environment, timeout=300)
    return where


def run(command: list[str], where: Path, environment: dict[str, str] | None = None, timeout: float = 120) -> str:
    """Run a command in `where`; its output, or a failure showing it."""
    done = subprocess.run(
        command, cwd=where, env=environment, capture_output=True, text=True, timeout=timeout, check=False
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{said}"
    return said


def test_the_generated_types_compile_a_client_that_sends_only_what_is_required(tools: Path) -> None:
    generator = str(tools / "node_modules" / ".bin" / "openapi-typescript")
    said = run([generator, str(SPEC_PATH), "--output", str(tools / "parlour.ts")], tools)
    assert "warn" not in said.lower() and "error" not in said.lower(), said
    (tools / "required.ts").write_text(required_keys_checks(load_document()), encoding="utf-8")
    command = [str(tools / "node_modules" / ".bin" / "tsc"), *TSC_FLAGS, "client.ts", "required.ts"]
    done = subprocess.run(command, cwd=tools, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, (
        f"tsc --strict fails:\n{done.stdout}{done.stderr}\n{quoted_lines(tools, done.stdout)}\n"
        "(openapi-typescript's default flags require a request body's property that has a `default`:"
        " say the default in its description instead)"
    )


def quoted_lines(where: Path, said: str) -> str:
    """The source lines tsc's errors point at (`file.ts(line,column): error ...`), to read with its messages."""
    quoted = []
    for file, line in re.findall(r"^([\w.]+\.ts)\((\d+),\d+\)", said, flags=re.MULTILINE):
        text = (where / file).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        quoted.append(f"{file}:{line}: {text.strip()}")
    return "\n".join(quoted)


def required_keys_checks(document: dict[str, Any]) -> str:
    """TypeScript asserting, for each request body's schema, that its generated type requires what `required` lists."""
    bodies: dict[str, list[str]] = {}
    for path, method, operation in iter_operations(document):
        body = operation.get("requestBody")
        for media_type in resolve(document, body)["content"].values() if body is not None else ():
            reference = media_type["schema"].get("$ref", "")
            name = reference.removeprefix("#/components/schemas/")
            assert name and name != reference, f"{method} {path}: its request body is not a named component"
            bodies[name] = resolve(document, media_type["schema"]).get("required", [])
    lines = [CHECKS_PRELUDE]
    for name, required in sorted(bodies.items()):
        expected = " | ".join(f'"{field}"' for field in required) or "never"
        lines.append(f'export const {name}: Equal<RequiredKeys<components["schemas"]["{name}"]>, {expected}> = true;')
    return "\n".join(lines) + "\n"

"""What a browser asks for: the web client at `/`, its files under `/web/`, the API reference at `/docs`,
the guide at `/guide`, and the OpenAPI document at `/v1/openapi.yaml` and `/v1/openapi.json`.

Everything here is a file in the repository (`web/`, `openapi.yaml`), read once per process; the web
client is plain ES modules and its libraries are vendored under `web/vendor/` (`make web`), so
serving it needs no Node. The client is a single page: its own routes are in the URL's fragment
(`/#/matches/<id>`), so no server route ever shadows an API path. The pages hold no inline script
or style: every answer's Content-Security-Policy (`api.headers`) allows only this server's files.

The guide is the MkDocs site that `make docs` builds from `docs/` into `site/` (`make run` builds it first).
Its pages are files (`/guide/reference/settings.html`, not folders), so no guide path ends with a slash
either; its theme's inline scripts are moved into files when it is built (`docs/hooks/self_contained.py`),
so it runs under the same policy as every other page.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import yaml
from flask import Blueprint, Response, abort, redirect, request, send_from_directory
from werkzeug.security import safe_join
from werkzeug.wrappers import Response as WerkzeugResponse

from api.headers import secure
from model.refusals import NotFound

ROOT = Path(__file__).resolve().parent.parent
WEB_DIR = ROOT / "web"
SPEC_PATH = ROOT / "openapi.yaml"
GUIDE_DIR = ROOT / "site"
"""The built guide (`make docs`)."""
GUIDE_INDEX = "index.html"
SPEC_YAML_TYPES = ("application/yaml", "text/plain")
"""What `GET /v1/openapi.yaml` answers, the first when `Accept` prefers neither (a generator that knows no
YAML reads the `text/plain` one the document also declares)."""
NO_STORE_HTML = "no-cache"
"""Pages are checked on every load (they are small), so a new release's client is never mixed with an old one."""

blueprint = Blueprint("web", __name__)
blueprint.after_app_request(secure)  # every answer of the app, API included (see api.headers)


@blueprint.get("/")
def client() -> Response:
    """The web client's page."""
    return page("index.html")


@blueprint.get("/docs")
def reference() -> Response:
    """The API reference (Swagger UI, vendored) reading /v1/openapi.json."""
    return page("docs.html")


@blueprint.get("/web/<path:filename>")
def asset(filename: str) -> Response:
    """A file of the web client (modules, styles, vendored libraries); 404 outside `web/`."""
    response = send_from_directory(WEB_DIR, filename, max_age=60)
    if filename.endswith(".js"):
        response.mimetype = "text/javascript"  # module scripts need a JavaScript type, whatever the host's table says
    return response


@blueprint.get("/guide")
def guide_home() -> WerkzeugResponse:
    """The guide's first page: its links are relative to `/guide/`, so this is a redirect to the file."""
    guide_dir()
    return redirect(f"/guide/{GUIDE_INDEX}", code=302)


@blueprint.get("/guide/<path:filename>")
def guide_page(filename: str) -> Response:
    """A file of the built guide: pages revalidated on every load, its other files kept a minute; 404 outside it."""
    if filename.endswith("/") or "//" in filename:
        abort(404)  # answered as every path with a trailing slash or an empty segment is
    directory = guide_dir()
    path = safe_join(str(directory), filename)
    if path is None or not Path(path).is_file():
        raise NotFound(f"the guide has no page {filename!r}; its first page is /guide/{GUIDE_INDEX}")
    if filename.endswith(".html"):
        response = send_from_directory(directory, filename, max_age=0)
        response.headers["Cache-Control"] = NO_STORE_HTML
        return response
    response = send_from_directory(directory, filename, max_age=60)
    if filename.endswith(".js"):
        response.mimetype = "text/javascript"
    return response


def guide_dir() -> Path:
    """The built guide's folder; a 404 saying how to build it when it is not there."""
    if not (GUIDE_DIR / GUIDE_INDEX).is_file():
        raise NotFound("the guide is not built: run `make docs` (`make run` builds it), then reload")
    return GUIDE_DIR


@blueprint.get("/v1/openapi.yaml")
def spec_yaml() -> Response:
    """The OpenAPI document, as written: YAML, or the same text as `text/plain` to a client preferring it."""
    response = Response(spec_text(), mimetype=request.accept_mimetypes.best_match(SPEC_YAML_TYPES, SPEC_YAML_TYPES[0]))
    response.vary.add("Accept")
    return response


@blueprint.get("/v1/openapi.json")
def spec_json() -> Response:
    """The OpenAPI document as JSON."""
    return Response(spec_json_text(), mimetype="application/json")


def page(name: str) -> Response:
    """An HTML page of `web/`, revalidated on every load."""
    response = send_from_directory(WEB_DIR, name, max_age=0)
    response.headers["Cache-Control"] = NO_STORE_HTML
    return response


@cache
def spec_text() -> str:
    """openapi.yaml, read once."""
    return SPEC_PATH.read_text(encoding="utf-8")


@cache
def spec_json_text() -> str:
    """openapi.yaml converted to JSON, once."""
    return json.dumps(yaml.safe_load(spec_text()), ensure_ascii=False)

"""What a browser asks the API for besides the API: the spec, the reference page and the client's files."""

from __future__ import annotations

from pathlib import Path

import yaml
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parents[2]


def test_the_spec_is_served_as_yaml_and_as_the_same_json(client: FlaskClient) -> None:
    """/v1/openapi.yaml is openapi.yaml byte for byte; /v1/openapi.json is the same document."""
    as_yaml = client.get("/v1/openapi.yaml")
    as_json = client.get("/v1/openapi.json")
    assert as_yaml.status_code == as_json.status_code == 200
    assert as_yaml.mimetype == "application/yaml" and as_json.mimetype == "application/json"
    assert as_yaml.get_data(as_text=True) == (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    assert as_json.get_json() == yaml.safe_load(as_yaml.get_data(as_text=True))


def test_the_reference_page_loads_the_vendored_swagger_ui(client: FlaskClient) -> None:
    """/docs is HTML whose script and style come from this server, never a CDN."""
    page = client.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "/web/vendor/swagger-ui/swagger-ui-bundle.js" in html and "https://" not in html
    script = client.get("/web/vendor/swagger-ui/swagger-ui-bundle.js")
    assert script.status_code == 200 and script.mimetype == "text/javascript"
    assert client.get("/web/docs.js").get_data(as_text=True).count("/v1/openapi.json") == 1


def test_files_outside_web_are_not_served(client: FlaskClient) -> None:
    """A path climbing out of web/ is a 404, as is a file that is not there."""
    for path in ("/web/../api/app.py", "/web/%2e%2e/api/app.py", "/web/..%2fapi/app.py", "/web/missing.js"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.mimetype == "application/problem+json", path

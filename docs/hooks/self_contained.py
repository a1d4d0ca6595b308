"""MkDocs hook: move the theme's inline scripts into files of the site, so every page runs under a
Content-Security-Policy of `script-src 'self'` (the service's own, api/headers.py) without hashes or
'unsafe-inline'.

Material writes a few small scripts into each page (its storage helpers, the colour palette, the tabbed
blocks); each becomes `assets/javascripts/inline/<hash>.js`, loaded by a plain `<script src>` in the same
place, so it still runs in the same order, before the page goes on. Data blocks such as
`<script type="application/json">` are not run and stay as they are.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

INLINE_SCRIPT = re.compile(r"<script>(?P<body>.*?)</script>", re.DOTALL)
FOLDER = "assets/javascripts/inline"


def externalize(html: str, page_url: str, site_dir: str) -> str:
    """The page with each inline script written to a file of the site and loaded from there."""

    def move(script: re.Match[str]) -> str:
        body = script["body"]
        name = f"{FOLDER}/{hashlib.sha256(body.encode()).hexdigest()[:16]}.js"
        path = Path(site_dir) / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        return f'<script src="{get_relative_url(name, page_url)}"></script>'

    return INLINE_SCRIPT.sub(move, html)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """A page, its inline scripts moved to files."""
    return externalize(output, page.url or "index.html", config.site_dir)


def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    """A page of the theme's own (404.html), its inline scripts moved to files."""
    return (
        externalize(output_content, template_name, config.site_dir)
        if template_name.endswith(".html")
        else output_content
    )

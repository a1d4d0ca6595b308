"""Headers every answer carries so a browser cannot be turned against the people using Parlour.

The web client keeps every seat, owner and bot token in localStorage, on the same origin as the API
reference (Swagger UI), and its Resign and Abort buttons act at one click. So no page may be framed
by another site (clickjacking), run a script or style that is not a file of this server (injected
markup stays inert), talk to another origin, or have a file read as another type than the one sent.
The policy is the same on every answer: a JSON or problem answer opened in a tab is a page too.
"""

from __future__ import annotations

from flask import Response

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # Renderers add their CSS as constructed sheets and set custom properties through the CSSOM:
        # neither is inline style, so no 'unsafe-inline' is needed.
        "style-src 'self'",
        "img-src 'self' data:",  # Swagger UI's icons are data: URLs in its stylesheet
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    # Tokens travel in Authorization headers, never in a URL; an address may still name an unlisted match.
    "Referrer-Policy": "no-referrer",
}


def secure(response: Response) -> Response:
    """Add the security headers to an answer (an after-request hook for every route)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response

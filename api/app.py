"""The Flask application factory."""

from __future__ import annotations

from flask_cors import CORS

from api import health, web
from api.analysis import views as analysis
from api.bodies import BodyTimeout
from api.bots import views as bots
from api.catalog import views as catalog
from api.current import ParlourApp
from api.events import views as events
from api.exports import views as match_exports
from api.http import private_when_authorized
from api.jobs import views as jobs
from api.limits import RATE_LIMIT_HEADERS
from api.limits import install as install_limits
from api.matches import views as matches
from api.matchmaking import views as matchmaking
from api.problems import register_error_handlers
from api.replication import replicated
from api.reviews import views as reviews
from api.socket import views as socket
from api.tournaments import views as tournaments
from domain.wiring import build_services
from model.settings import Settings


def create_app(settings: Settings | None = None) -> ParlourApp:
    """Build the API: its services, routes, error handlers and CORS."""
    settings = settings or Settings()
    app = ParlourApp(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.services = build_services(settings)
    # `//` is an empty path segment, not a slash to merge with a redirect: answered 404 like any unknown path.
    app.url_map.merge_slashes = False
    app.after_request(private_when_authorized)
    CORS(
        app,
        origins=settings.cors_origins,
        expose_headers=["ETag", "Location", *RATE_LIMIT_HEADERS],
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "Last-Event-ID"],
        max_age=600,
    )
    blueprints = (
        health,
        catalog,
        matches,
        match_exports,
        reviews,
        events,
        jobs,
        analysis,
        tournaments,
        bots,
        matchmaking,
        socket,
        web,
    )
    for blueprint in (module.blueprint for module in blueprints):
        app.register_blueprint(blueprint)
    install_limits(app, settings.limits, settings.redis_url)
    app.after_request(replicated)  # registered last, so it runs first: CORS and the limits' headers go on its answer
    register_error_handlers(app)
    app.wsgi_app = BodyTimeout(app.wsgi_app, settings.body_timeout)  # type: ignore[method-assign]
    return app

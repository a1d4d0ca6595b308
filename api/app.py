"""The Flask application factory."""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

from api import games, health
from api.ai_turns import AiTurns
from api.bots import views as bots
from api.config import Settings
from api.errors import register_error_handlers
from api.events import views as events
from api.events.feed import ChangeFeed
from api.events.stream import Renders
from api.jobs import views as jobs
from api.jobs.queue import JobQueue
from api.matches import views as matches
from api.store import MatchStore
from api.timers import TimerQueue, TurnTimers
from api.tournaments import views as tournaments
from api.tournaments.service import Tournaments
from api.tournaments.store import TournamentStore


def create_app(settings: Settings | None = None) -> Flask:
    """Build the API: routes, error handlers, CORS and the Redis-backed match store."""
    settings = settings or Settings()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["parlour.settings"] = settings
    store = MatchStore.from_url(settings.redis_url, settings.finished_ttl, settings.idle_ttl, settings.idempotency_ttl)
    queue = JobQueue.from_url(settings.redis_url, settings.job_ttl, settings.ai_retries)
    app.extensions["parlour.store"] = store
    app.extensions["parlour.jobs"] = queue
    app.extensions["parlour.ai_turns"] = AiTurns(store, queue)
    timer_queue = TimerQueue.from_url(settings.redis_url, settings.ai_retries)
    app.extensions["parlour.timers"] = TurnTimers(store, timer_queue)
    app.extensions["parlour.changes"] = ChangeFeed(store)
    app.extensions["parlour.event_renders"] = Renders()
    app.extensions["parlour.tournaments"] = Tournaments(
        TournamentStore.from_url(settings.redis_url, settings.idle_ttl), store
    )
    CORS(
        app,
        origins=settings.cors_origins,
        expose_headers=["ETag", "Location"],
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "Last-Event-ID"],
        max_age=600,
    )
    blueprints = (health, games, matches, events, jobs, tournaments, bots)
    for blueprint in (module.blueprint for module in blueprints):
        app.register_blueprint(blueprint)
    register_error_handlers(app)
    return app

"""The Flask app class holding a process's services, and the services of the app serving the current request."""

from __future__ import annotations

from typing import cast

from flask import Flask, current_app

from api.json_provider import FastJSONProvider
from domain.owners import Stores
from domain.wiring import Services


class ParlourApp(Flask):
    """The Flask app, holding this process's services; its answers written by orjson."""

    json_provider_class = FastJSONProvider
    services: Services


def services() -> Services:
    """The services of the app serving the current request."""
    return cast(ParlourApp, current_app).services


def owned_stores() -> Stores:
    """Where the app serving the current request keeps what owners own (domain/owners.py)."""
    current = services()
    return Stores(current.store, current.tournaments.store)

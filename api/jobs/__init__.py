"""The jobs resource: AI moves computed by RQ workers off the request path."""

"""RQ workers that compute AI moves off the request path and play them through the checked path."""

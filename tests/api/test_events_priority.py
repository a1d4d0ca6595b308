"""Under gevent (how the service serves), a stream woken by a change lets the requests ready to run answer first.

Run in a child process: gevent's monkey-patching must not touch the test process.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CHILD = """
from gevent import monkey
monkey.patch_all()
import json, socket, sys, threading
import gevent
from api.events.feed import requests_first

order = []
reply, redis_side = socket.socketpair()  # a request waiting for its last reply from Redis
change = threading.Event()  # a stream waiting for a change of its match

def request():
    reply.recv(1)
    order.append("request")

def stream():
    change.wait()
    if sys.argv[1] == "yes":
        requests_first()
    order.append("stream")

waiting = [gevent.spawn(request), gevent.spawn(stream)]
gevent.sleep(0.01)  # both wait now
redis_side.send(b"x")  # the reply and the change arrive together, as a commit's reply and its notice do
change.set()
gevent.joinall(waiting)
print(json.dumps(order))
"""


def run_child(yields: bool) -> list[str]:
    """The order in which the request and the stream went on."""
    answer = subprocess.run(
        [sys.executable, "-c", CHILD, "yes" if yields else "no"], capture_output=True, text=True, check=True, timeout=60
    )
    return list(json.loads(answer.stdout))


@pytest.mark.parametrize(("yields", "order"), [(False, ["stream", "request"]), (True, ["request", "stream"])])
def test_a_woken_stream_lets_a_ready_request_answer_first(yields: bool, order: list[str]) -> None:
    # Without requests_first the stream's wake-up runs before the loop looks at the sockets again; with it, after.
    assert run_child(yields) == order

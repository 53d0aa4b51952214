# The pytest fixture of docs/guides/run-parallel-suites-against-one-server.md, as printed there
# (test/guides/worlds-helpers.test.ts checks that the guide's block is this file after this comment).
# Copy it into your own conftest.py.
import json
import os
import urllib.request

import pytest

SERVER = os.environ.get("INFRA_DOUBLES_URL", "http://127.0.0.1:8080")


def _sim(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(SERVER + "/_sim" + path, data, {"Content-Type": "application/json"}, method=method)
    with urllib.request.urlopen(request) as response:
        text = response.read()
    return json.loads(text) if text else None


def pytest_configure(config):
    config.addinivalue_line("markers", 'world(options): the body of POST /_sim/worlds, e.g. {"seed": 7}')


@pytest.fixture
def world(request):
    """A world of its own, closed after the test: {"url", "controlToken", "secrets": {"rootToken"}, ...}."""
    marker = request.node.get_closest_marker("world")
    options = dict(marker.args[0]) if marker else {}
    if os.environ.get("INFRA_DOUBLES_MUTANT"):  # under infra-doubles mutate: the world is that mutant
        options.setdefault("mutant", os.environ["INFRA_DOUBLES_MUTANT"])
    created = _sim("POST", "/worlds", options)
    yield created
    _sim("DELETE", "/worlds/" + created["id"])

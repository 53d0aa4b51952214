# hvac tests, each in a world of its own made by conftest.py's `world` fixture, run in parallel
# (pytest-xdist) against one `infra-doubles serve` (issue 26 item 1): every world has the same root
# token (same seed); each test mounts its own engine, seals its node or not, moves its clock by its own
# amount and adds its own fault, and sees nothing of any other world. Run by
# scripts/clients/run.mjs (worlds):
#
#   INFRA_DOUBLES_URL=http://127.0.0.1:8080 python3 -m pytest -n 4 -p no:cacheprovider scripts/clients/worlds
import json
import urllib.request

import hvac
import pytest

WORLDS = 24


def control(world, method, path, body=None):
    """The world's own /_sim/ API, with its token."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-Infra-Doubles-Control-Token": world["controlToken"]}
    request = urllib.request.Request(world["url"] + "/_sim" + path, data, headers, method=method)
    with urllib.request.urlopen(request) as response:
        text = response.read()
    return json.loads(text) if text else None


@pytest.mark.parametrize("n", range(WORLDS))
@pytest.mark.world({"clock": "manual", "start": "2024-01-01T00:00:00Z"})
def test_a_world_of_its_own(world, n):
    client = hvac.Client(url=world["url"], token=world["secrets"]["rootToken"])
    client.sys.enable_secrets_engine("ssh", path="ssh-of-%d" % n)
    mounts = [path for path in client.sys.list_mounted_secrets_engines()["data"] if path.startswith("ssh-of-")]
    assert mounts == ["ssh-of-%d/" % n]
    if n % 2 == 1:
        control(world, "POST", "/secrets/node-state", {"state": "sealed"})
    assert client.sys.read_seal_status()["sealed"] == (n % 2 == 1)
    control(world, "POST", "/clock/advance", {"by": "%dm" % (n + 1)})
    assert control(world, "GET", "/clock")["now"] == "2024-01-01T%02d:%02d:00.000Z" % ((n + 1) // 60, (n + 1) % 60)
    control(world, "POST", "/faults", {"service": "secrets", "route": "GET /sys/health", "answer": "internal-error", "id": "fault-of-%d" % n})
    assert [fault["id"] for fault in control(world, "GET", "/faults")["faults"]] == ["fault-of-%d" % n]
    entries = control(world, "GET", "/journal")["entries"]
    assert all(entry["url"].startswith(world["url"] + "/") for entry in entries)
    assert [entry["url"] for entry in entries if entry["method"] == "POST" and "/sys/mounts/" in entry["url"]] == [world["url"] + "/v1/sys/mounts/ssh-of-%d" % n]
    reached = control(world, "GET", "/coverage")["services"]["secrets"]["endpoints"]["reached"]
    assert reached["GET /sys/mounts"] == 1


def test_a_control_call_needs_the_worlds_token(world):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(world["url"] + "/_sim/clock")
    assert refused.value.code == 401


@pytest.mark.world({"seed": 7, "scenario": {"secrets": {"tokens": [{"name": "ci", "policies": ["default"], "ttl": "1h"}]}}})
def test_a_world_from_a_scenario_document(world):
    token = world["scenario"]["secrets"]["tokens"]["ci"]
    assert hvac.Client(url=world["url"], token=token).is_authenticated()
    assert "rootToken" not in world["secrets"]

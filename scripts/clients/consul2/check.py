"""python-consul2 (Python) against the access-control service of `infra-doubles serve`, configured
as its README says (consul.Consul(host=..., port=..., scheme=..., token=...)): ACL bootstrap (refused
in a world that starts bootstrapped, then once after the control API's bootstrap reset), policies
and roles (create, read by ID and name, list, update, delete), a token linking an HTTP-made role,
and the leader. Run it through scripts/clients/run.mjs, which starts the server and sets
CONSUL_HTTP_ADDR and CONSUL_HTTP_TOKEN. Debian: apt-get install python3-consul2 (0.1.5)."""
import json
import os
import sys
import urllib.request
from urllib.parse import urlparse

import consul

address = os.environ["CONSUL_HTTP_ADDR"]
url = urlparse(address)
client = consul.Consul(host=url.hostname, port=url.port, scheme=url.scheme, token=os.environ["CONSUL_HTTP_TOKEN"])


def check(label, condition):
    if not condition:
        print("consul2: FAILED " + label, file=sys.stderr)
        sys.exit(1)
    print("consul2: " + label)


try:
    client.acl.bootstrap()
    check("a bootstrapped world refuses bootstrap", False)
except consul.ACLPermissionDenied as error:
    check("a bootstrapped world refuses bootstrap", "ACL bootstrap no longer allowed (reset index: " in str(error))

reset = urllib.request.Request(address + "/_sim/accessControl/bootstrap-reset", data=b"{}", method="POST", headers={"Content-Type": "application/json"})
with urllib.request.urlopen(reset) as answer:
    json.load(answer)
management = client.acl.bootstrap()
check("bootstrap after a reset", management["Policies"][0]["Name"] == "global-management" and management["ID"] == management["SecretID"])
try:
    client.acl.bootstrap()
    check("a second bootstrap is refused", False)
except consul.ACLPermissionDenied as error:
    check("a second bootstrap is refused", "(reset index: %d)" % management["CreateIndex"] in str(error))

root = management["SecretID"]
policy = client.acl.policy.create("consul2-write", description="ACL writers", rules='acl = "write"', token=root)
check("create a policy", policy["Rules"] == 'acl = "write"')
check("read it by ID and by name", client.acl.policy.get(policy["ID"])["Name"] == "consul2-write" and client.acl.policy.get(name="consul2-write")["ID"] == policy["ID"])
check("list policies", policy["ID"] in [p["ID"] for p in client.acl.policy.list()])
updated = client.acl.policy.update(policy["ID"], "consul2-write", rules='acl = "write"\noperator = "read"')
check("update a policy", updated["ModifyIndex"] > policy["ModifyIndex"])
try:
    client.acl.policy.create("consul2-bad", rules='acl = "list"')
    check("bad rules are refused", False)
except consul.ConsulException as error:
    check("bad rules are refused", 'Invalid acl policy: "list"' in str(error))

role = client.acl.roles.create({"Name": "consul2-admins", "Policies": [{"ID": policy["ID"]}]})
check("create a role", role["Policies"] == [{"ID": policy["ID"], "Name": "consul2-write"}])
check("read it by ID and by name", client.acl.roles.get(role["ID"])["Name"] == "consul2-admins" and client.acl.roles.get_by_name("consul2-admins")["ID"] == role["ID"])
check("list roles", [r["ID"] for r in client.acl.roles.list()] == [role["ID"]])
# The client quotes the "?" of its own `roles?policy=` path (urllib.parse.quote), so the real
# service's router answers 404, which the client returns as (index, None); the fake answers alike.
check("list roles by policy: the client's quoted path is a 404, as on the real service", client.acl.roles.list(policy=policy["ID"])[1] is None)
token = client.acl.tokens.create({"Description": "consul2", "Roles": [{"Name": "consul2-admins"}]})
made = client.acl.tokens.create({"Description": "made through a role"}, token=token["SecretID"])
check("a token linking the role may write", made["Description"] == "made through a role")
# A missing role is a 404, which the client returns as (X-Consul-Index, None).
check("delete the role", client.acl.roles.delete(role["ID"]) is True and client.acl.roles.get(role["ID"])[1] is None)
check("delete the policy", client.acl.policy.delete(policy["ID"]) is True)
check("leader", client.status.leader() == "127.0.0.1:8300" and client.status.peers() == ["127.0.0.1:8300"])

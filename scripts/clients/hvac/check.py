"""hvac (Python) against the secrets service of `infra-doubles serve`, configured as its README
says (hvac.Client(url=..., token=...)): health, seal status and init status, write/read/delete,
list (the LIST method), SSH OTP creds and verify, response wrapping (wrap_ttl) and unwrapping. Run it through scripts/clients/run.mjs, which starts the server and sets
VAULT_ADDR and VAULT_TOKEN. Debian: apt-get install python3-hvac (hvac 0.11.2)."""
import os
import sys

import hvac

client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])


def check(label, condition):
    if not condition:
        print("hvac: FAILED " + label, file=sys.stderr)
        sys.exit(1)
    print("hvac: " + label)


health = client.sys.read_health_status(method="GET")
check("health", health["initialized"] is True and health["sealed"] is False)

client.write("ssh/roles/hvac-role", key_type="otp", default_user="deploy", cidr_list="10.9.0.0/16")
role = client.read("ssh/roles/hvac-role")
check("write and read a role", role["data"]["default_user"] == "deploy")

listed = client.list("ssh/roles")
check("list roles with LIST", "hvac-role" in listed["data"]["keys"])

creds = client.write("ssh/creds/hvac-role", ip="10.9.1.2")
check("ssh creds", creds["data"]["key_type"] == "otp" and creds["data"]["ip"] == "10.9.1.2")
verified = hvac.Client(url=os.environ["VAULT_ADDR"]).write("ssh/verify", otp=creds["data"]["key"])
check("ssh verify", verified["data"]["username"] == "deploy")

check("initialized", client.sys.is_initialized() is True)
seal = client.sys.read_seal_status()
check("seal status", seal["sealed"] is False and seal["t"] == 1 and seal["n"] == 1 and seal["progress"] == 0)
check("is_sealed", client.sys.is_sealed() is False)

# Response wrapping: the wrapped answer carries only wrap_info; unwrapping gives it back once.
wrapped = client.write("ssh/creds/hvac-role", ip="10.9.1.3", wrap_ttl="60s")
check("wrapped write carries only wrap_info", wrapped["data"] is None and wrapped["wrap_info"]["ttl"] == 60
      and wrapped["wrap_info"]["creation_path"] == "ssh/creds/hvac-role")
unwrapped = client.sys.unwrap(wrapped["wrap_info"]["token"])
check("unwrap with the token in the body", unwrapped["data"]["ip"] == "10.9.1.3" and unwrapped["data"]["key_type"] == "otp")
try:
    client.sys.unwrap(wrapped["wrap_info"]["token"])
    check("a used wrapping token is refused", False)
except hvac.exceptions.InvalidRequest as error:
    check("a used wrapping token is refused", "wrapping token is not valid or does not exist" in str(error))
wrapped_read = client.read("ssh/roles/hvac-role", wrap_ttl=120)
check("wrapped read", wrapped_read["data"] is None and wrapped_read["wrap_info"]["ttl"] == 120)
as_client_token = hvac.Client(url=os.environ["VAULT_ADDR"], token=wrapped_read["wrap_info"]["token"]).sys.unwrap()
check("unwrap with the wrapping token as the client token", as_client_token["data"]["default_user"] == "deploy")

client.delete("ssh/roles/hvac-role")
check("delete a role", "hvac-role" not in (client.list("ssh/roles") or {"data": {"keys": []}})["data"]["keys"])

try:
    hvac.Client(url=os.environ["VAULT_ADDR"], token="s.unknown").read("ssh/roles/otp-role")
    check("unknown token refused", False)
except hvac.exceptions.Forbidden:
    check("unknown token refused", True)

# The token auth method (issue 23): is_authenticated() and lookup_token() call auth/token/lookup-self.
check("is_authenticated", client.is_authenticated() is True)
check("is_authenticated is False for an unknown token", hvac.Client(url=os.environ["VAULT_ADDR"], token="s.unknown").is_authenticated() is False)
check("lookup_token (lookup-self)", client.lookup_token()["data"]["policies"] == ["root"])

created = client.auth.token.create(policies=["default"], ttl="1h", meta={"team": "ops"})
child_token = created["auth"]["client_token"]
check("auth.token.create", created["auth"]["lease_duration"] == 3600 and created["auth"]["policies"] == ["default"] and created["auth"]["orphan"] is False)
child = hvac.Client(url=os.environ["VAULT_ADDR"], token=child_token)
check("the child token is authenticated", child.is_authenticated() is True)
looked = client.lookup_token(child_token)
check("lookup_token(token) (lookup)", looked["data"]["meta"] == {"team": "ops"} and looked["data"]["ttl"] <= 3600)
by_accessor = client.lookup_token(created["auth"]["accessor"], accessor=True)
check("lookup_token(accessor, accessor=True) (lookup-accessor)", by_accessor["data"]["id"] == "" and by_accessor["data"]["display_name"] == "token-token")  # hvac sends display_name="token"
renewed = child.auth.token.renew_self(increment="30m")
check("auth.token.renew_self", renewed["auth"]["lease_duration"] == 1800)
grandchild = client.auth.token.create(policies=["default"], no_parent=True)
check("auth.token.create(no_parent=True) makes an orphan", grandchild["auth"]["orphan"] is True)
try:
    child.auth.token.create(policies=["admin"])
    check("child policies must be subset of parent", False)
except hvac.exceptions.Forbidden:
    # The default policy does not grant auth/token/create: refused before the subset rule.
    check("a default-policy token may not create tokens", True)
child.auth.token.revoke_self()
check("auth.token.revoke_self revokes the token", child.is_authenticated() is False)

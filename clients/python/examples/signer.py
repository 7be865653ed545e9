"""Get an access token with a signed request (spec 4.1), then list the account's clients (spec 4.2).
Settings: BASE_URL (management API), FQDN, CLIENT_ID, KEY (PEM private key), CERT_UUID (registered self-signed
certificate) or CERT_CHAIN_URL (CA-issued chain). Prints the token."""
import os
import sys
from pathlib import Path

from convplatform import ApiError, ManagementClient, RequestSigner

env = os.environ
signer = RequestSigner.from_pem(Path(env["KEY"]).read_bytes(), cert_uuid=env.get("CERT_UUID"),
                                cert_chain_url=env.get("CERT_CHAIN_URL"))
client = ManagementClient(env.get("BASE_URL", "http://localhost:8081"), signer)
try:
    token = client.issue_token(env["CLIENT_ID"], fqdn=env["FQDN"])
    clients = client.list_clients(fqdn=env["FQDN"])
except ApiError as e:
    raise SystemExit(f"refused: {e.status} {e.error_code}: {e.error_message}")
print(f"{len(clients)} client(s); token for {token.client_id}, valid {token.expires_in} s", file=sys.stderr)
print(token.access_token)

"""The certification task (docs/sandbox.md, "Certifying a client") done with wfctl's SDK, as a script would."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from wfctl.api import Client, FileStore, TokenAuth, TokenPair


def main() -> int:
    url, user = os.environ["CERTIFY_BASE_URL"], os.environ["CERTIFY_USERNAME"]
    client_id = os.environ["CERTIFY_CLIENT_ID"]
    with tempfile.TemporaryDirectory() as directory:
        store = FileStore(Path(directory) / "tokens.json", Path(directory) / "tokens.lock")
        with Client(url) as anonymous:
            answer = anonymous.login(user, os.environ["CERTIFY_PASSWORD"])
        store.save(TokenPair.from_response(answer, username=user, base_url=url))
        with Client(url, auth=TokenAuth(store, url), warn=lambda text: None) as client:
            sites = list(client.iter_sites(client_id))
            Path(os.environ["CERTIFY_READ_FILE"]).write_text("".join(f"{site['id']}\n" for site in sites))
            client.create_site(client_id, {"name": os.environ["CERTIFY_NEW_SITE"]})
            client.update_site(os.environ["CERTIFY_SITE_ID"], {"phone": os.environ["CERTIFY_SITE_PHONE"]})
    print(f"{len(sites)} sites read", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A correct reference client of the certification task (docs/sandbox.md, "Certifying a client"): the standard
library only, every tolerance of the contract it meets, about 10 requests."""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

BASE = os.environ["CERTIFY_BASE_URL"]
ORIGIN = urllib.parse.urlsplit(BASE)[:2]


class Session:
    def __init__(self) -> None:
        self.access = self.refresh = None

    def login(self) -> None:
        pair = self.send("POST", "/identity/login", {"username": os.environ["CERTIFY_USERNAME"],
                                                     "password": os.environ["CERTIFY_PASSWORD"]}, auth=False)
        self.access, self.refresh = pair["accessToken"], pair["refreshToken"]

    def renew(self) -> None:
        body = {"accessToken": self.access, "refreshToken": self.refresh}
        for _ in range(3):  # a lost answer: the same pair again, within the grace window (G3)
            try:
                pair = self.send("POST", "/identity/refresh", body, auth=False, renew=False)
            except ConnectionError:
                continue
            except PermissionError:
                break
            self.access, self.refresh = pair["accessToken"], pair["refreshToken"]
            return
        self.login()

    def send(self, method, url, body=None, *, auth=True, renew=True, headers=None, lost=None):
        target = urllib.parse.urljoin(BASE + "/", url)
        if urllib.parse.urlsplit(target)[:2] != ORIGIN:
            raise SystemExit(f"refusing a link to another origin: {target}")  # G8: no token leaves
        for attempt in range(6):
            request = urllib.request.Request(target, method=method, headers={"Content-Type": "application/json",
                                                                             **(headers or {})})
            if auth:
                request.add_header("Authorization", f"Bearer {self.access}")
            data = json.dumps(body).encode() if body is not None else None
            try:
                with urllib.request.urlopen(request, data, timeout=10) as answer:
                    text = answer.read()
                    return json.loads(text) if text.strip() else {}
            except urllib.error.HTTPError as error:
                error.read()
                if error.code in (429, 503):
                    time.sleep(float(error.headers.get("Retry-After") or 1))
                elif error.code == 401 and auth and renew and attempt == 0:
                    self.renew()
                elif error.code == 401:
                    raise PermissionError(url) from None
                elif error.code >= 500:
                    time.sleep(0.2)
                else:
                    raise SystemExit(f"{method} {url}: HTTP {error.code}") from None
            except (urllib.error.URLError, ConnectionError, OSError):
                if lost is None:
                    raise ConnectionError(url) from None
                found = lost()
                if found is not None:
                    return found
        raise SystemExit(f"{method} {url}: no answer after retries")


def main() -> int:
    session = Session()
    session.login()
    client = os.environ["CERTIFY_CLIENT_ID"]
    sites, link, page = [], f"/api/clients/{client}/sites", 1
    while link is not None:
        answer = session.send("GET", link)
        sites += answer["data"]
        following = answer.get("nextPage", "absent")
        if following == "absent":
            following = page + 1 if answer["pageNumber"] < answer["pageCount"] else None
        if isinstance(following, dict):
            following = following.get("pageNumber")
        if isinstance(following, (int, str)) and str(following).isdigit():
            following = f"/api/clients/{client}/sites?pageNumber={following}&pageSize={answer['pageSize']}"
        link, page = following, page + 1
    name = os.environ["CERTIFY_NEW_SITE"]
    key = str(uuid.uuid4())
    session.send("POST", f"/api/clients/{client}/sites", {"name": name}, headers={"Idempotency-Key": key},
                 lost=lambda: None)
    site_id = os.environ["CERTIFY_SITE_ID"]
    site = session.send("GET", f"/api/sites/{site_id}")
    record = {k: site[k] for k in ("name", "address", "phone", "email", "assessmentRequired", "departments",
                                   "rates", "bannedWorkers") if k in site}
    record["phone"] = os.environ["CERTIFY_SITE_PHONE"]
    session.send("PUT", f"/api/sites/{site_id}", record)  # the whole record: safe where a PUT clears (G13)
    print(f"{len(sites)} sites read", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

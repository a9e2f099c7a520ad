"""The reference client of the certification task (docs/sandbox.md, "Certifying a client"): the standard library
only, every tolerance of the contract met, about 10 requests. `python3 reference.py` is correct;
`python3 reference.py <rule>` breaks exactly that one rule (BREAKS), for tests/certify/test_certify.py."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

BREAKS = {
    "no-retry-after": "retries a 429 or a 503 at once",
    "no-retry-after-429": "retries a 429 at once (waits on a 503)",
    "no-retry-after-503": "retries a 503 at once (waits on a 429)",
    "reuse-refresh": "presents its first spent refresh token again at the end",
    "new-key-on-retry": "repeats a create that answered 500 with a new Idempotency-Key",
    "no-key": "creates without an Idempotency-Key and repeats a lost one without a look-up",
    "partial-put": "updates with the name and phone alone (a deployment that clears loses the rest)",
    "int-link-ends": "takes a page-number nextPage for the end",
    "string-link-ends": "takes a numeric-string nextPage for the end",
    "object-link-ends": "takes an object nextPage for the end",
    "relative-link-ends": "takes a relative nextPage for the end",
    "missing-link-ends": "takes a missing nextPage for the end",
    "first-page-twice": "reads the first page twice",
    "last-page-twice": "reads the last page twice",
    "follow-foreign": "follows a nextPage to another origin, token and all",
    "json-errors-only": "fails on an error body that is not JSON",
    "needs-expires-in": "fails on a login answer without expiresIn",
    "retry-401": "repeats a request that got 401 before refreshing",
    "burst": "reads every site at once, 9 requests in flight",
    "short-retry-after": "waits half of what Retry-After asks",
    "own-page-numbers": "reads pages by numbers it counts itself, not by the links (misses a record that moves)",
}
BREAK = sys.argv[1] if len(sys.argv) > 1 else ""
BASE = os.environ.get("CERTIFY_BASE_URL", "")
ORIGIN = urllib.parse.urlsplit(BASE)[:2]


class Session:
    def __init__(self) -> None:
        self.access = self.refresh = None
        self.spent: dict[str, str] | None = None

    def login(self) -> None:
        pair = self.send("POST", "/identity/login", {"username": os.environ["CERTIFY_USERNAME"],
                                                     "password": os.environ["CERTIFY_PASSWORD"]}, auth=False)
        if BREAK == "needs-expires-in":
            int(pair["expiresIn"])
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
            self.spent = self.spent or body
            self.access, self.refresh = pair["accessToken"], pair["refreshToken"]
            return
        self.login()

    def send(self, method, url, body=None, *, auth=True, renew=True, headers=None, lost=None):
        target = urllib.parse.urljoin(BASE + "/", url)
        if urllib.parse.urlsplit(target)[:2] != ORIGIN and BREAK != "follow-foreign":
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
                text = error.read()
                if BREAK == "json-errors-only":
                    json.loads(text)
                if error.code in (429, 503):
                    wait = float(error.headers.get("Retry-After") or 1)
                    if not (BREAK == "no-retry-after" or f"no-retry-after-{error.code}" == BREAK):
                        time.sleep(wait / 2 if BREAK == "short-retry-after" else wait)
                elif error.code == 401 and auth and renew and attempt == 0 and BREAK == "retry-401":
                    continue
                elif error.code == 401 and auth and renew and attempt <= 1:
                    self.renew()
                elif error.code == 401:
                    raise PermissionError(url) from None
                elif error.code >= 500:
                    time.sleep(0.2)
                    if BREAK == "new-key-on-retry" and headers and "Idempotency-Key" in headers:
                        headers = {**headers, "Idempotency-Key": str(uuid.uuid4())}
                else:
                    raise SystemExit(f"{method} {url}: HTTP {error.code}") from None
            except (urllib.error.URLError, ConnectionError, OSError):
                if lost is None:
                    raise ConnectionError(url) from None
                found = lost()
                if found is not None:
                    return found
        raise SystemExit(f"{method} {url}: no answer after retries")


def read_sites(session: Session, client: str) -> list[dict]:
    sites, link, page, last = [], f"/api/clients/{client}/sites", 1, None
    if BREAK == "first-page-twice":
        session.send("GET", link)
    while link is not None:
        answer = session.send("GET", link)
        sites += answer["data"]
        last = link
        following = answer.get("nextPage", "absent")
        ends = {"int-link-ends": int, "string-link-ends": str, "object-link-ends": dict}
        if BREAK in ends and type(following) is ends[BREAK] and following != "absent" \
                and not str(following).startswith(("http", "/")):
            following = None
        if BREAK == "relative-link-ends" and isinstance(following, str) and following.startswith("/"):
            following = None
        if following == "absent":
            following = None if BREAK == "missing-link-ends" else (
                page + 1 if answer["pageNumber"] < answer["pageCount"] else None)
        if isinstance(following, dict):
            following = following.get("pageNumber")
        if isinstance(following, (int, str)) and str(following).isdigit():
            following = f"/api/clients/{client}/sites?pageNumber={following}&pageSize={answer['pageSize']}"
        if BREAK == "own-page-numbers":
            following = f"/api/clients/{client}/sites?pageNumber={page + 1}" if page < answer["pageCount"] else None
        link, page = following, page + 1
    if BREAK == "last-page-twice":
        session.send("GET", last)
    return sites


def main() -> int:
    session = Session()
    session.login()
    client = os.environ["CERTIFY_CLIENT_ID"]
    sites = read_sites(session, client)
    with open(os.environ["CERTIFY_READ_FILE"], "w", encoding="utf-8") as told:  # what it read, for the records check
        told.writelines(f"{site['id']}\n" for site in sites)
    name = os.environ["CERTIFY_NEW_SITE"]
    headers = {} if BREAK == "no-key" else {"Idempotency-Key": str(uuid.uuid4())}
    losses = []

    def lost() -> dict | None:  # an answer lost: the same request again (the same key); no-key gives up the 2nd time
        losses.append(1)
        return {} if BREAK == "no-key" and len(losses) > 1 else None

    session.send("POST", f"/api/clients/{client}/sites", {"name": name}, headers=headers, lost=lost)
    site_id = os.environ["CERTIFY_SITE_ID"]
    phone = os.environ["CERTIFY_SITE_PHONE"]
    site = session.send("GET", f"/api/sites/{site_id}")
    if BREAK == "partial-put":
        session.send("PUT", f"/api/sites/{site_id}", {"name": site["name"], "phone": phone})
    else:
        record = {k: site[k] for k in ("name", "address", "phone", "email", "assessmentRequired", "departments",
                                       "rates", "bannedWorkers") if k in site}
        session.send("PUT", f"/api/sites/{site_id}", dict(record, phone=phone))  # the whole record (G13)
    if BREAK == "burst":
        start = threading.Barrier(9)

        def read(site_id: str) -> None:
            start.wait()
            session.send("GET", f"/api/sites/{site_id}")

        threads = [threading.Thread(target=read, args=(s["id"],)) for s in sites[:9]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if BREAK == "reuse-refresh" and session.spent is not None:
        session.renew()  # its successor spent too: the first is now outside the grace window
        with contextlib.suppress(PermissionError):
            session.send("POST", "/identity/refresh", session.spent, auth=False, renew=False)
    print(f"{len(sites)} sites read", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

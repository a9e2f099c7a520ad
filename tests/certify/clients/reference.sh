#!/bin/sh
# The reference client of the certification task (docs/sandbox.md, "Certifying a client") in POSIX sh with curl
# and jq: every tolerance of the contract met, about 10 requests, as reference.py does it in Python.
# `sh reference.sh` keeps every rule; `sh reference.sh <rule>` breaks exactly that one:
#   partial-put      updates with the name and the phone alone (a deployment that clears loses the rest, G13)
#   no-retry-after   retries a 429 or a 503 at once (G18)
# No token or password is ever an argument of a process: bodies are written by jq from the environment and
# printf (a builtin), the Authorization header is read by curl from a file of this run's own (0600).
set -u
BREAK="${1:-}"
BASE="${CERTIFY_BASE_URL%/}"
LIST="$BASE/api/clients/$CERTIFY_CLIENT_ID/sites"
umask 077
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
    printf '%s\n' "$*" >&2
    exit 1
}

# The origin (scheme://host:port, lower case) of an absolute URL.
origin() {
    printf '%s\n' "$1" | sed -E 's#^([A-Za-z][A-Za-z0-9+.-]*://[^/?#]*).*#\1#' | tr 'A-Z' 'a-z'
}

# request METHOD URL [BODY-FILE] [auth|none] [IDEMPOTENCY-KEY]: one exchange; STATUS is the HTTP status (000: no
# answer at all, as when a create's answer is lost), the body is in $WORK/body and the headers in $WORK/head.
request() {
    set -- "$1" "$2" "${3:-}" "${4:-auth}" "${5:-}"
    r_url=$2 r_data=$3 r_auth=$4 r_key=$5
    set -- -sS -o "$WORK/body" -D "$WORK/head" -w '%{http_code}' --max-time 30 -X "$1"
    if [ -n "$r_data" ]; then set -- "$@" -H 'Content-Type: application/json' --data-binary "@$r_data"; fi
    if [ "$r_auth" = auth ]; then set -- "$@" -H "@$WORK/auth"; fi
    if [ -n "$r_key" ]; then set -- "$@" -H "Idempotency-Key: $r_key"; fi
    : >"$WORK/body"
    STATUS=$(curl "$@" "$r_url" 2>>"$WORK/curl-errors") || STATUS=000
}

# Wait what the answer's Retry-After asks (G18; seconds, 1 when it says nothing we can read).
wait_retry_after() {
    [ "$BREAK" = no-retry-after ] && return
    seconds=$(tr -d '\r' <"$WORK/head" | sed -n 's/^[Rr][Ee][Tt][Rr][Yy]-[Aa][Ff][Tt][Ee][Rr]: *//p' | head -n 1)
    case $seconds in '' | *[!0-9.]*) seconds=1 ;; esac
    sleep "$seconds"
}

# The pair of a login or refresh answer, kept: the access token in the header file curl reads.
take_pair() {
    ACCESS=$(jq -r .accessToken "$WORK/body") && REFRESH=$(jq -r .refreshToken "$WORK/body") ||
        fail "a token answer that is not JSON"
    export ACCESS REFRESH
    printf 'Authorization: Bearer %s\n' "$ACCESS" >"$WORK/auth"
}

# ask_pair PATH BODY-FILE: a login or a refresh until it is answered, the new pair kept (status 0). A lost answer
# or a 5xx is asked again with the same body: for a refresh, the same pair within the grace window (G3). Status 1
# when it is refused.
ask_pair() {
    for _ in 1 2 3 4 5 6; do
        request POST "$BASE$1" "$2" none
        case $STATUS in
            2??) take_pair; return 0 ;;
            429 | 503) wait_retry_after ;;
            000 | 5??) sleep 0.2 ;;
            *) return 1 ;;
        esac
    done
    return 1
}

login() {
    jq -n '{username: env.CERTIFY_USERNAME, password: env.CERTIFY_PASSWORD}' >"$WORK/login"
    ask_pair /identity/login "$WORK/login" || fail "login: HTTP $STATUS"
}

# A new pair for the one held; a refused refresh means log in again (G4).
renew() {
    jq -n '{accessToken: env.ACCESS, refreshToken: env.REFRESH}' >"$WORK/renew"
    ask_pair /identity/refresh "$WORK/renew" || login
}

# send METHOD URL [BODY-FILE] [IDEMPOTENCY-KEY]: an authenticated request until it is answered 2xx. A 429 or 503
# waits its Retry-After; a 401 renews the pair once (G2: no expiresIn is needed); a 5xx or a lost answer is sent
# again (a create with the same Idempotency-Key, G20); any other error form (G10) ends the run with one line.
send() {
    method=$1 target=$2 payload=${3:-} idem=${4:-}
    renewed=0
    for _ in 1 2 3 4 5 6 7 8; do
        request "$method" "$target" "$payload" auth "$idem"
        case $STATUS in
            2??) return ;;
            429 | 503) wait_retry_after ;;
            401)
                [ "$renewed" -lt 2 ] || fail "$method $target: HTTP 401 after a new login"
                renewed=$((renewed + 1))
                renew
                ;;
            000 | 5??) sleep 0.2 ;;
            *) fail "$method $target: HTTP $STATUS" ;;
        esac
    done
    fail "$method $target: no answer after retries"
}

# The link to the next page, whatever form nextPage takes (G8): an absolute or relative URL, a page number, a
# numeric string, an object holding pageNumber, or missing (then pageNumber < pageCount decides); "" at the end.
next_link() {
    jq -r --arg list "$LIST" '. as $page
        | (if has("nextPage") then .nextPage elif .pageNumber < .pageCount then .pageNumber + 1 else null end)
        | (if type == "object" then .pageNumber else . end)
        | if . == null or . == "" then ""
          elif (tostring | test("^[0-9]+$")) then "\($list)?pageNumber=\(.)&pageSize=\($page.pageSize)"
          else . end' "$WORK/body"
}

login
link=$LIST
: >"$WORK/ids"
while [ -n "$link" ]; do
    case $link in
        /*) link="$(origin "$BASE")$link" ;;
        *://*) ;;
        *) link="${LIST%/*}/$link" ;;
    esac
    # G8: a link to another origin is never followed, and no token leaves
    [ "$(origin "$link")" = "$(origin "$BASE")" ] || fail "refusing a link to another origin: $link"
    send GET "$link"
    jq -r '.data[].id' "$WORK/body" >>"$WORK/ids" || fail "a page that is not JSON"
    link=$(next_link)
done
cp "$WORK/ids" "$CERTIFY_READ_FILE"  # what it read, for the records check

# The create, with an Idempotency-Key: sent again with the same key when its answer is lost (G20).
key=$(cat /proc/sys/kernel/random/uuid 2>/dev/null || od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
jq -n '{name: env.CERTIFY_NEW_SITE}' >"$WORK/create"
send POST "$LIST" "$WORK/create" "$key"

# The update writes the whole record back with the phone changed, so a deployment that clears what a PUT
# leaves out loses nothing (G13).
send GET "$BASE/api/sites/$CERTIFY_SITE_ID"
if [ "$BREAK" = partial-put ]; then
    jq '{name, phone: env.CERTIFY_SITE_PHONE}' "$WORK/body" >"$WORK/update"
else
    jq '{name, address, phone, email, assessmentRequired, departments, rates, bannedWorkers}
        | with_entries(select(.value != null)) | .phone = env.CERTIFY_SITE_PHONE' "$WORK/body" >"$WORK/update"
fi
send PUT "$BASE/api/sites/$CERTIFY_SITE_ID" "$WORK/update"
printf '%s sites read\n' "$(wc -l <"$WORK/ids" | tr -d ' ')" >&2

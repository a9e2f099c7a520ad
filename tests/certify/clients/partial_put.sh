#!/bin/sh
# A shell client of the certification task (curl and jq) that breaks one rule: its update sends the name and the phone alone,
# so a deployment that clears what a PUT leaves out (put-clears, G13) loses the site's other fields.
set -eu
base="$CERTIFY_BASE_URL"
token=$(jq -n --arg u "$CERTIFY_USERNAME" --arg p "$CERTIFY_PASSWORD" '{username: $u, password: $p}' |
    curl -sf -H 'Content-Type: application/json' --data-binary @- "$base/identity/login" | jq -r .accessToken)
auth="Authorization: Bearer $token"
link="$base/api/clients/$CERTIFY_CLIENT_ID/sites"
: >"$CERTIFY_READ_FILE"
while [ -n "$link" ] && [ "$link" != null ]; do
    page=$(curl -sf -H "$auth" "$link")
    printf '%s' "$page" | jq -r '.data[].id' >>"$CERTIFY_READ_FILE"
    link=$(printf '%s' "$page" | jq -r .nextPage)
done
jq -n --arg n "$CERTIFY_NEW_SITE" '{name: $n}' | curl -sf -o /dev/null -H "$auth" -H 'Content-Type: application/json' \
    -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" --data-binary @- "$base/api/clients/$CERTIFY_CLIENT_ID/sites"
name=$(curl -sf -H "$auth" "$base/api/sites/$CERTIFY_SITE_ID" | jq -r .name)
jq -n --arg n "$name" --arg p "$CERTIFY_SITE_PHONE" '{name: $n, phone: $p}' | curl -sf -o /dev/null -X PUT -H "$auth" \
    -H 'Content-Type: application/json' --data-binary @- "$base/api/sites/$CERTIFY_SITE_ID"

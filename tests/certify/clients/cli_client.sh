#!/bin/sh
# The certification task (docs/sandbox.md, "Certifying a client") done with the wfctl command line.
set -eu
export WFCTL_CONFIG="$(mktemp -d)/config.toml"
printf '%s' "$CERTIFY_PASSWORD" | wfctl login --base-url "$CERTIFY_BASE_URL" --username "$CERTIFY_USERNAME" \
    --password-stdin --credential-store file >/dev/null
wfctl sites list --client "$CERTIFY_CLIENT_ID" --all -o jsonl --fields id | sed 's/.*"id": *"\([^"]*\)".*/\1/' \
    >"$CERTIFY_READ_FILE"
wfctl sites create --client "$CERTIFY_CLIENT_ID" --name "$CERTIFY_NEW_SITE" -o json >/dev/null
wfctl sites update "$CERTIFY_SITE_ID" --phone "$CERTIFY_SITE_PHONE" -o json >/dev/null

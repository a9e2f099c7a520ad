"""The SDK on the wire: the httpx transport, TLS, the one retry policy, limits on an answer, origins, the
bulk runs' lean writer, an answer turned into a value or an ApiError, and redaction of secrets."""

"""The SDK's login: token sources (asked on every request), the token pair and its values, where it is kept."""

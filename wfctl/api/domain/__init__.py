"""The SDK's planners of the agency's domain: rates and bans across sites, read, planned and applied."""

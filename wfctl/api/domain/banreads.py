"""Where sites sit: each client's branch (id and name), read once for `wfctl bans where` (`wfctl.api.domain.bans`
judges the sites; this reads the two lists that name their branches)."""

from __future__ import annotations

from typing import Any

from wfctl.api.records.ordered import ordered_map


def client_branches(api: Any) -> dict[str, tuple[str, str]]:
    """client id -> (branch id, branch name) for every client of the agency: the client and branch lists,
    read side by side (two paged reads, whatever the number of sites)."""
    def read(kind: str) -> list[dict[str, Any]]:
        return list(api.iter_clients() if kind == "client" else api.iter_branches())

    clients, branches = ordered_map(read, ["client", "branch"], 2)
    names = {str(branch.get("id", "")): str(branch.get("name", "")) for branch in branches}
    return {str(client.get("id", "")): (str(client.get("branchId") or ""),
                                        names.get(str(client.get("branchId") or ""), ""))
            for client in clients}

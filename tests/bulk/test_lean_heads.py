"""The lean writer reads an answer's head itself (wfctl/api/net/lean.py, issue 43: without the email package's
parser): the forms of a head a server may send, from a real socket, read as http.client read them."""

from __future__ import annotations

import socket
import threading

import pytest

from wfctl.api.client import Client
from wfctl.api.session.auth import StaticTokenAuth


def _send(answer: bytes) -> tuple[object, bool]:
    """What the lean writer answers for a create the server answers with `answer` (and whether it was a replay)."""
    listener = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            data = b""
            while b'"x"}' not in data:
                data += conn.recv(65536)
            conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    sender = Client(url, auth=StaticTokenAuth("t", url), timeout=10)._runs.lean_writer()
    assert sender is not None
    try:
        return sender.request("POST", "/api/branches", {"name": "x"}, "key-1"), sender.replayed()
    finally:
        thread.join(timeout=5)
        listener.close()


@pytest.mark.parametrize("answer", [
    # names in any case, a folded header, a chunked body
    b"HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nIDEMPOTENT-REPLAYED:\r\n  true\r\n"
    b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n7\r\n{\"id\": \r\n4\r\n\"b1\"\r\n1\r\n}\r\n0\r\n\r\n",
    # a 100 Continue first, HTTP/1.0, a Content-Length
    b"HTTP/1.1 100 Continue\r\nX-Any: 1\r\n\r\nHTTP/1.0 201 Created\r\nContent-Type: application/json\r\n"
    b"Idempotent-Replayed: true\r\nContent-Length: 13\r\n\r\n{\"id\": \"b1\"}\n",
], ids=["chunked-folded", "continue-http10"])
def test_an_answers_head_is_read_in_every_form(answer: bytes) -> None:
    assert _send(answer) == ({"id": "b1"}, True)

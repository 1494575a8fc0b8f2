"""The stdlib client turns every transport failure into GateServiceError (status 0), not a raw
exception (break-it: a killed or hung service raised RemoteDisconnected / TimeoutError). Stub
sockets only: no venv packages, no gate service."""
from __future__ import annotations

import socket
import threading

import pytest

from mem_gate import GateClient, GateServiceError


def _stub(behaviour: str) -> str:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)

    def serve() -> None:
        conn, _ = srv.accept()
        conn.recv(65536)
        if behaviour == "close":
            conn.close()
        elif behaviour == "hang":
            threading.Event().wait(3)
            conn.close()
        elif behaviour == "not-json":
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 5\r\nconnection: close\r\n\r\n<html")
            conn.close()
        elif behaviour == "truncated":
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\nconnection: close\r\n\r\n{\"a\":")
            conn.close()
        srv.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{srv.getsockname()[1]}"


@pytest.mark.parametrize(
    "behaviour,code",
    [("close", "UNREACHABLE"), ("hang", "TIMEOUT"), ("not-json", "BAD_RESPONSE"), ("truncated", "UNREACHABLE")],
)
def test_transport_failures_are_gate_service_errors(behaviour: str, code: str) -> None:
    client = GateClient(_stub(behaviour), timeout=0.5)
    with pytest.raises(GateServiceError) as info:
        client.route("s", vector=[1.0, 0.0, 0.0])
    assert info.value.status == 0
    assert info.value.code == code

"""The stdlib client refuses a bad vector, replace or tau_noop before sending anything, with
GateServiceError(0, "INVALID_INPUT") (break-it finding 10: a bool or str component, a non-bool
replace and an out-of-range tau_noop were sent or coerced). A stub socket counts the requests that
reach it: no venv packages, no gate service."""
from __future__ import annotations

import json
import socket
import threading
from typing import Any, Dict, List

import pytest

from mem_gate import GateClient, GatePolicy, GateServiceError


class _Stub:
    """Answers every request with a canned 200 JSON and keeps the bodies it received."""

    def __init__(self) -> None:
        self.bodies: List[Dict[str, Any]] = []
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(8)
        self.url = f"http://127.0.0.1:{self.srv.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.srv.accept()
            except OSError:
                return
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, rest = data.partition(b"\r\n\r\n")
            length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
            while len(rest) < length:
                rest += conn.recv(65536)
            self.bodies.append(json.loads(rest) if rest else {})
            out = b'{"decision":{"action":"add","score":0.1},"noopFilter":{"noop":false}}'
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s" % (len(out), out))
            conn.close()


@pytest.fixture()
def stub() -> _Stub:
    s = _Stub()
    yield s
    s.srv.close()


BAD_VECTORS = [
    [],
    [True, 0.0],
    [1.0, False],
    ["0.5", 1.0],
    "0.5,1.0",
    b"\x01\x02",
    [1.0, None],
    [float("nan"), 1.0],
    [float("inf")],
    [1.0, [2.0]],
    {"x": 1.0},
    3.0,
    [1 + 2j],
]


@pytest.mark.parametrize("vector", BAD_VECTORS, ids=repr)
def test_bad_vectors_are_refused_before_sending(stub: _Stub, vector: Any) -> None:
    client = GateClient(stub.url, timeout=5)
    for call in (lambda: client.route("s", vector=vector), lambda: client.commit("s", "a", vector=vector)):
        with pytest.raises(GateServiceError) as info:
            call()
        assert (info.value.status, info.value.code) == (0, "INVALID_INPUT")
    assert stub.bodies == []


@pytest.mark.parametrize("replace", [1, 0, "yes", None, [True]], ids=repr)
def test_replace_must_be_a_bool(stub: _Stub, replace: Any) -> None:
    with pytest.raises(GateServiceError) as info:
        GateClient(stub.url, timeout=5).commit("s", "a", vector=[1.0, 0.0], replace=replace)
    assert info.value.code == "INVALID_INPUT"
    assert stub.bodies == []


@pytest.mark.parametrize("tau", [1.0001, -1.5, 2, float("nan"), float("inf"), True, "0.5"], ids=repr)
def test_tau_noop_outside_the_service_range_is_refused(stub: _Stub, tau: Any) -> None:
    client = GateClient(stub.url, timeout=5)
    with pytest.raises(GateServiceError) as info:
        client.route("s", vector=[1.0, 0.0], tau_noop=tau)
    assert info.value.code == "INVALID_INPUT"
    with pytest.raises(GateServiceError):
        GatePolicy(client, "s", tau_noop=tau)
    assert stub.bodies == []


def test_valid_arguments_are_sent_as_json_numbers(stub: _Stub) -> None:
    client = GateClient(stub.url, timeout=5)
    client.route("s", vector=(1, 2.5, -3), tau_noop=1)
    client.route("s", vector=[1e200, -1e200, 0.0], tau_noop=-1.0)  # huge but finite: the service rescales it
    client.commit("s", "a", vector=[0.5, 0.5], replace=True)
    client.commit("s", "b", vector=[0.5, 0.5])
    assert stub.bodies == [
        {"scope": "s", "vector": [1.0, 2.5, -3.0], "tauNoop": 1.0},
        {"scope": "s", "vector": [1e200, -1e200, 0.0], "tauNoop": -1.0},
        {"scope": "s", "id": "a", "vector": [0.5, 0.5], "replace": True},
        {"scope": "s", "id": "b", "vector": [0.5, 0.5]},
    ]
    pre = GatePolicy(client, "s", tau_noop=0.572)
    assert pre.check(vector=[1.0, 0.0]).action == "write"
    assert stub.bodies[-1]["tauNoop"] == 0.572

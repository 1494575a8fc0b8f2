"""Against the REAL gate service: $MEM_GATE_URL when set (CI starts ``npx mem-gate serve`` from the
packed tarballs), else ``mem-gate`` on PATH or the checkout's CLI; skipped with the reason when none
can be started. The peer is a stand-in (conftest.FakeMem0): what is checked is the service's part."""

from __future__ import annotations

import os
import uuid

import pytest

from conftest import FakeMem0
from mem_gate import GateClient, GatedMem0, GateServiceError, calibrate_tau_noop
from mem_gate.experiment import env


@pytest.fixture(scope="module")
def gate():
    try:
        svc = env.start_gate_service()
    except env.Unavailable as e:
        if os.environ.get("MEM_GATE_REQUIRED") == "1":
            raise
        pytest.skip(f"no gate service: {e}")
    try:
        yield GateClient(svc.url, timeout=30)
    finally:
        svc.close()


def test_route_commit_delete_round_trip(gate):
    scope = f"svc-{uuid.uuid4().hex[:8]}"
    assert gate.route(scope, vector=[1.0, 0.0, 0.0])["decision"]["n"] == 0
    assert gate.commit(scope, "a", vector=[1.0, 0.0, 0.0])["size"] == 1
    r = gate.route(scope, vector=[1.0, 0.01, 0.0], tau_noop=0.5)
    assert r["decision"]["nearest"]["id"] == "a" and r["noopFilter"]["noop"] is True
    assert gate.commit(scope, "a", vector=[1.0, 0.0, 0.0])["unchanged"] is True  # a retried commit
    with pytest.raises(GateServiceError) as info:
        gate.commit(scope, "a", vector=[0.0, 1.0, 0.0])
    assert info.value.code == "DUPLICATE_ID"
    assert gate.delete(scope, "a")["size"] == 0


def test_gated_mem0_annotates_against_the_real_gate(gate):
    vec = {"my cat is Miso": [1.0, 0.0, 0.0], "Miso is my cat": [0.99, 0.05, 0.0], "I play the cello": [0.0, 1.0, 0.0]}
    mem = FakeMem0()
    scope = f"svc-{uuid.uuid4().hex[:8]}"
    g = GatedMem0(mem, gate, embed=lambda t: vec[t], tau_noop=0.9, scope_of=lambda u, a, r: scope)
    a = g.add("my cat is Miso", user_id="alice")
    b = g.add("Miso is my cat", user_id="alice")
    c = g.add("I play the cello", user_id="alice")
    assert [x["gate"]["action"] for x in (a, b, c)] == ["write", "annotate", "write"]
    assert [call["infer"] for call in mem.calls] == [True, False, True]
    assert mem.memories[b["results"][0]["id"]]["metadata"]["duplicate_of"] == a["results"][0]["id"]
    assert gate.stats(scope)["size"] == 2


def test_calibration_on_the_real_gate(gate):
    vs = [[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.9, 0.1], [0.5, 0.5, 0.0]]
    c = calibrate_tau_noop(gate, vs, embedder="toy")
    assert -1.0 <= c.tau_noop <= 1.0 and c.scores == 4
    assert c.percentiles["50"] <= c.tau_noop <= c.percentiles["95"]

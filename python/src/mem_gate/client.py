"""Client for the @mem gate service (`mem-gate serve`), standard library only (urllib, json).

The service runs the SAGE von Mises-Fisher novelty gate (seed 001, section 3): ask it before you
write a memory whether the new fact is novel (add), a near-duplicate (noop) or in the narrow band
where a merge with the nearest memory pays (update); tell it what you stored (commit) and what you
deleted (delete), per scope.

    from mem_gate import GateClient
    gate = GateClient("http://127.0.0.1:8788")
    d = gate.route("user:alice", text="I adopted a cat named Miso")
    if d["decision"]["action"] != "noop":
        memory_id = my_store.add(...)
        gate.commit("user:alice", memory_id, text="I adopted a cat named Miso")

Errors from the service raise GateServiceError with the service's error code
(e.g. INVALID_INPUT, DUPLICATE_ID, UNKNOWN_ID, DIMENSION_MISMATCH, STATE_NOT_PERSISTED). A vector
that is not a non-empty sequence of finite real numbers, a replace that is not a bool and a
tau_noop outside [-1, 1] are refused before anything is sent: GateServiceError(0, "INVALID_INPUT").
A commit of an id the scope already holds with the same vector (a retry) answers unchanged=True.
"""

from __future__ import annotations

import http.client
import json
import math
import numbers
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["GateClient", "GateServiceError", "DEFAULT_URL"]

DEFAULT_URL = "http://127.0.0.1:8788"


class GateServiceError(Exception):
    """An error answered by the gate service (status, code, message), or status 0 for one the client
    raises itself: a transport failure (UNREACHABLE — refused, closed or cut connection; TIMEOUT — no
    answer in time (a commit may still have been applied; retrying it with the same vector is safe, the
    service answers unchanged=True); BAD_RESPONSE — a 2xx answer that is not JSON) or an argument
    refused before sending (INVALID_INPUT — a bad vector, replace or tau_noop)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class GateClient:
    """Thin JSON client for the four gate endpoints. Thread-safe (no shared mutable state)."""

    def __init__(self, base_url: str = DEFAULT_URL, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    # -- endpoints -----------------------------------------------------------------------------

    def route(
        self,
        scope: str,
        vector: Optional[Sequence[float]] = None,
        text: Optional[str] = None,
        tau_noop: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Decision for a candidate (read-only): {"scope", "decision": {action, novelty, score,
        threshold, kappa, density, nearest, n}, "noopFilter": {tauNoop, noop}}. Give vector or text."""
        body: Dict[str, Any] = {"scope": scope, **self._payload(vector, text)}
        if tau_noop is not None:
            body["tauNoop"] = _check_tau_noop(tau_noop)
        return self._request("POST", "/v1/gate/route", body)

    def commit(
        self,
        scope: str,
        memory_id: str,
        vector: Optional[Sequence[float]] = None,
        text: Optional[str] = None,
        replace: bool = False,
    ) -> Dict[str, Any]:
        """Record a stored memory: {"scope", "id", "size", "replaced", "unchanged"}. unchanged is True when
        the id already held this vector (a retried commit: nothing changed); another vector under a
        stored id is DUPLICATE_ID (409) unless replace=True."""
        if not isinstance(replace, bool):
            raise _invalid(f"replace must be a bool, got {type(replace).__name__}")
        body: Dict[str, Any] = {"scope": scope, "id": memory_id, **self._payload(vector, text)}
        if replace:
            body["replace"] = True
        return self._request("POST", "/v1/gate/commit", body)

    def delete(self, scope: str, memory_id: str) -> Dict[str, Any]:
        """Forget a memory: {"scope", "id", "removed": True, "size"}; UNKNOWN_ID (404) if absent."""
        return self._request("DELETE", f"/v1/gate/{_seg(scope)}/{_seg(memory_id)}")

    def stats(self, scope: str) -> Dict[str, Any]:
        """{"scope", "size", "stats": {n, dimension, commits, tau, kappa, density, ...} or None}."""
        return self._request("GET", f"/v1/gate/{_seg(scope)}/stats")

    # -- plumbing ------------------------------------------------------------------------------

    @staticmethod
    def _payload(vector: Optional[Sequence[float]], text: Optional[str]) -> Dict[str, Any]:
        if (vector is None) == (text is None):
            raise ValueError("give exactly one of vector or text")
        return {"vector": _check_vector(vector)} if vector is not None else {"text": text}

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        req.add_header("accept", "application/json")
        if data is not None:
            req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw_ok = resp.read()
            try:
                return json.loads(raw_ok.decode("utf-8"))
            except ValueError:
                raise GateServiceError(0, "BAD_RESPONSE", f"{self.base_url}: the answer is not JSON (is the gate service on this port?)") from None
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                err = json.loads(raw)["error"]
                raise GateServiceError(e.code, err.get("code", "HTTP_ERROR"), err.get("message", raw)) from None
            except (ValueError, KeyError, TypeError):
                raise GateServiceError(e.code, "HTTP_ERROR", raw) from None
        except (urllib.error.URLError, TimeoutError) as e:
            # a commit that timed out may still have been applied: check with stats() before retrying
            if isinstance(e, TimeoutError) or isinstance(getattr(e, "reason", None), TimeoutError):
                raise GateServiceError(0, "TIMEOUT", f"{self.base_url}: no answer within {self.timeout} s") from None
            raise GateServiceError(0, "UNREACHABLE", f"{self.base_url}: {e.reason}") from None
        except (http.client.HTTPException, ConnectionError) as e:
            # the service closed, reset or cut the connection (e.g. killed mid-request)
            raise GateServiceError(0, "UNREACHABLE", f"{self.base_url}: connection lost ({type(e).__name__})") from None


TAU_NOOP_RANGE = (-1.0, 1.0)  # what the service accepts for tauNoop (s_vMF is a cosine-like score)


def _invalid(message: str) -> GateServiceError:
    return GateServiceError(0, "INVALID_INPUT", message)


def _real(x: Any) -> bool:
    """A real number that is not a bool (True is an int in Python; numpy floats count, numpy bools do not)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and type(x).__name__ != "bool_"


def _check_vector(vector: Any) -> List[float]:
    """The vector as a list of floats, or INVALID_INPUT: a non-empty sequence (list, tuple, array) of
    finite real numbers; a str, bytes or mapping, a bool, None or NaN/inf component is refused."""
    if isinstance(vector, (str, bytes, bytearray, dict)) or not hasattr(vector, "__len__") or not hasattr(vector, "__iter__"):
        raise _invalid(f"vector must be a non-empty list of finite numbers, got {type(vector).__name__}")
    out: List[float] = []
    for i, x in enumerate(vector):
        if not _real(x):
            raise _invalid(f"vector[{i}] is a {type(x).__name__}, not a finite real number")
        f = float(x)
        if not math.isfinite(f):
            raise _invalid(f"vector[{i}] is {f}, not a finite real number")
        out.append(f)
    if not out:
        raise _invalid("vector is empty")
    return out


def _check_tau_noop(tau_noop: Any) -> float:
    lo, hi = TAU_NOOP_RANGE
    if not _real(tau_noop) or not (lo <= float(tau_noop) <= hi):
        raise _invalid(f"tau_noop must be a number in [{lo:g}, {hi:g}], got {tau_noop!r}")
    return float(tau_noop)


def _seg(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _main(argv: Sequence[str]) -> int:
    """python -m mem_gate.client [--url URL] route|commit|delete|stats SCOPE [ID] [TEXT]"""
    args = list(argv)
    url = DEFAULT_URL
    if len(args) >= 2 and args[0] == "--url":
        url, args = args[1], args[2:]
    if not args:
        print(_main.__doc__, file=sys.stderr)
        return 2
    client = GateClient(url)
    cmd, rest = args[0], args[1:]
    try:
        if cmd == "route" and len(rest) == 2:
            out = client.route(rest[0], text=rest[1])
        elif cmd == "commit" and len(rest) == 3:
            out = client.commit(rest[0], rest[1], text=rest[2])
        elif cmd == "delete" and len(rest) == 2:
            out = client.delete(rest[0], rest[1])
        elif cmd == "stats" and len(rest) == 1:
            out = client.stats(rest[0])
        else:
            print(_main.__doc__, file=sys.stderr)
            return 2
    except GateServiceError as e:
        print(json.dumps({"error": {"status": e.status, "code": e.code, "message": e.message}}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))

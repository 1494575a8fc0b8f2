"""The gate in front of any write path, standard library only (``pip install mem-gate``, no extras).

Eight notes, two of them verbatim repeats, go through ``GatePolicy`` (policy ``annotate``, the
default): a novel note is written (where a real peer would spend its LLM calls) and committed to the
gate; a Noop is kept raw with a link to the note it repeats. The service embeds the text with its
own offline embedder; with a real peer, send the peer's vectors instead (see mem0_example.py).

    npx mem-gate serve --port 8788 &
    python examples/python/policy_example.py --url http://127.0.0.1:8788
"""

from __future__ import annotations

import argparse
import json
import uuid

from mem_gate import GateClient, GatePolicy

NOTES = [  # written for this example
    "I adopted a grey cat named Miso last spring.",
    "My cat Miso is grey and I adopted her last spring.",
    "I started learning to play the cello in September.",
    "Cello lessons are every Tuesday evening.",
    "I adopted a grey cat named Miso last spring.",
    "My sister lives in Lisbon and works as an architect.",
    "I started learning to play the cello in September.",
    "We are planning a trip to Japan in April.",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8788")
    ap.add_argument("--policy", default="annotate", choices=["annotate", "skip", "adaptive"])
    ap.add_argument("--tau-noop", type=float, default=None, help="calibrate it for your embedder (mem-gate-calibrate)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    pol = GatePolicy(GateClient(args.url), f"example:{uuid.uuid4().hex[:8]}", policy=args.policy, tau_noop=args.tau_noop)
    store = {}  # what a peer would hold: id -> (text, metadata)
    rows = []
    for text in NOTES:
        v = pol.check(text=text)
        if v.action == "write":  # the peer's full (LLM) write
            mid = str(uuid.uuid4())
            store[mid] = (text, {})
            pol.record(mid, text=text)
        elif v.action == "annotate":  # the peer's raw, no-LLM write, linked to what it repeats
            store[str(uuid.uuid4())] = (text, v.link())
        rows.append({"text": text, "action": v.action, "score": round(v.score, 3), "duplicate_of": v.nearest if v.noop else None})
    summary = {"policy": args.policy, "notes": len(NOTES), "written": pol.written, "annotated": pol.annotated, "skipped": pol.skipped, "stored": len(store), "decisions": rows}
    if args.json:
        print(json.dumps(summary))
        return
    for r in rows:
        print(f"  {r['action']:<9} s_vMF={r['score']:+.3f}  {r['text']}")
    print(f"{pol.written} written with the LLM, {pol.annotated} stored raw, {pol.skipped} dropped ({len(store)} of {len(NOTES)} kept)")


if __name__ == "__main__":
    main()

"""A labeler program for the command labeler's tests: JSON on stdin, labels as JSON on stdout.

It labels every text mentioning jitter with the theme ``retry-jitter`` (objecting when the text
disagrees) and appends one line per call to the log file named by ``--log``. Other options make
it misbehave the ways a real program can: ``--sleep``, ``--garbage``, ``--unsent``,
``--inject``, ``--exit``; ``--keep`` appends every request as received to a file, ``--env``
writes the environment it was given to a file (JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--sleep", type=float, default=0)
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--unsent", action="store_true")
    parser.add_argument("--inject", action="store_true")
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--keep", help="a file to append every request to, as received")
    parser.add_argument("--env", help="a file to write the environment to")
    args = parser.parse_args()
    if args.env:
        import os

        with open(args.env, "w", encoding="utf-8") as env:
            json.dump(dict(os.environ), env)
    raw = sys.stdin.read()
    if args.keep:
        with open(args.keep, "a", encoding="utf-8") as kept:
            kept.write(raw + "\n")
    request = json.loads(raw)
    with open(args.log, "a", encoding="utf-8") as log:
        log.write(json.dumps({"at": time.time(), "items": [i["id"] for i in request["items"]],
                              "keys": sorted(request["items"][0]) if request["items"] else []}) + "\n")
    time.sleep(args.sleep)
    if args.exit:
        print("the model is unavailable", file=sys.stderr)
        return args.exit
    if args.garbage:
        print("here are your labels: retry-jitter!")
        return 0
    labels = []
    for item in request["items"]:
        text = item["text"].lower()
        if "jitter" not in text:
            continue
        start = text.index("jitter")
        theme = "ignore-previous-instructions" if args.inject else "retry-jitter"
        labels.append({"id": "ev_" + "f" * 32 if args.unsent else item["id"], "theme": theme,
                       "category": "convention", "polarity": "objects-to" if "disagree" in text else "asks-for",
                       "spans": [[start, start + 6]]})
    if args.inject:
        labels[0]["theme"] = "ignore-all-previous-instructions"
    print(json.dumps({"labels": labels, "usage": {"model": "tiny-local", "inputTokens": 120, "outputTokens": 30,
                                                   "secretSauce": "ignored"}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

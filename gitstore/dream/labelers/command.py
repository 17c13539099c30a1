"""The command labeler: any program that reads JSON on standard input and writes labels as JSON
on standard output (a local model's CLI, a script around a hosted model).

Configured in ``okf/.memory/config.json``::

    {"dream": {"labelers": {"command": {"argv": ["llm-label", "--json"], "timeout": 60,
                                        "maxItems": 200, "batch": 50,
                                        "passEnv": ["ANTHROPIC_API_KEY"]}}}}

The program reads text anyone could write (a review comment can ask a model to run a tool), in
this repository as its working folder: it gets this process's environment without git's
variables and without any that looks like a credential (a GitHub token, ``ACTIONS_*``, a name
holding ``TOKEN``, ``SECRET``, ``PASSWORD``, ``KEY``, ``CREDENTIAL``, ``AUTH``...), so the token
a CI job pushes with is not within its reach. ``passEnv`` names the variables it needs anyway
(its model's API key), given as they are.

It receives ``{"schema": "gitstore.label-request/1", "categories": [...], "polarities": [...],
"items": [{"id": "ev_...", "text": "...", "kind": "review-comment" | "session-text", "path":
"src/x.py" | null}]}`` (no author, no thread: who wrote a text is not the program's business; each
text as the safety scanner shows it, none it quarantines: ``gitstore.dream.run`` screens what any
labeler that sends text out is given) and
answers ``{"labels": [{"id", "theme", "category", "polarity", "spans": [[start, end], ...]}],
"usage": {...}}``. Before the first call the dream prints and records a data-flow disclosure.

Its output is untrusted: bounded in bytes and time, parsed strictly (I-JSON), checked against
the answer's schema, every label must judge an item it was sent with spans inside that item's
text, and every theme goes through the safety scanner, its dashes read as spaces (a
quarantined theme is dropped and counted). A failure stops further calls and makes the dream degraded; labels from calls that
succeeded are kept, and the program is asked only about new evidence next time.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema_rs

from gitstore.dream.labelers import CATEGORIES, MAX_SPANS, POLARITIES, THEME_PATTERN, Label, LabelRun
from gitstore.dream.view import Evidence
from gitstore.errors import GitstoreError, InvalidInput
from gitstore.records.canonical import canonicalize, parse_json
from gitstore.safety.scanner import default_scanner

DEFAULTS = {"timeout": 60, "maxItems": 200, "batch": 50, "maxOutputBytes": 1 << 20}
LIMITS = {"timeout": 600, "maxItems": 5000, "batch": 500, "maxOutputBytes": 16 << 20}
MAX_LABELS_PER_ITEM = 3
USAGE_KEYS = {"model": str, "inputTokens": int, "outputTokens": int, "requests": int, "costMicros": int}

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["labels"],
    "additionalProperties": False,
    "properties": {
        "labels": {
            "type": "array",
            "maxItems": 5000,
            "items": {
                "type": "object",
                "required": ["id", "theme", "category", "polarity"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^ev_[0-9a-f]{32}$"},
                    "theme": {"type": "string", "pattern": THEME_PATTERN},
                    "category": {"enum": list(CATEGORIES)},
                    "polarity": {"enum": list(POLARITIES)},
                    "spans": {
                        "type": "array", "maxItems": MAX_SPANS,
                        "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                  "items": {"type": "integer", "minimum": 0}},
                    },
                },
            },
        },
        "usage": {"type": "object", "maxProperties": 16},
    },
}


class CommandLabeler:
    """Labels from a configured program over JSON on stdin and stdout."""

    name = "command"
    incremental = True

    def __init__(self, argv: Sequence[str], timeout: int = 60, max_items: int = 200, batch: int = 50,
                 max_output_bytes: int = 1 << 20, pass_env: Sequence[str] = ()) -> None:
        self.argv = list(argv)
        self.pass_env = tuple(pass_env)
        self.timeout = timeout
        self.max_items = max_items
        self.batch = batch
        self.max_output_bytes = max_output_bytes
        self.program = shutil.which(self.argv[0]) if self.argv else None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CommandLabeler:
        unknown = set(options) - {"argv", "passEnv", *DEFAULTS}
        if unknown:
            raise InvalidInput(f"command labeler: unknown options {', '.join(sorted(unknown))}")
        argv = options.get("argv")
        if argv is None:
            return cls([])
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and a for a in argv):
            raise InvalidInput("command labeler: argv must be a non-empty list of strings")
        pass_env = options.get("passEnv", [])
        if not isinstance(pass_env, list) or not all(isinstance(n, str) and _NAME.match(n) for n in pass_env):
            raise InvalidInput("command labeler: passEnv must be a list of environment variable names")
        if any(n.startswith("GIT_") for n in pass_env):
            raise InvalidInput("command labeler: passEnv cannot name git's variables (GIT_*)")
        values = {}
        for key, default in DEFAULTS.items():
            value = options.get(key, default)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= LIMITS[key]:
                raise InvalidInput(f"command labeler: {key} must be an integer from 1 to {LIMITS[key]}")
            values[key] = value
        return cls(argv, values["timeout"], values["maxItems"], values["batch"], values["maxOutputBytes"], pass_env)

    @property
    def sends_to(self) -> str | None:
        if not self.argv:
            return None
        where = self.program or "not found on PATH"
        return f"the program `{' '.join(self.argv)}` ({where}) on this machine, which may pass it on"

    def unavailable(self) -> str | None:
        """Why this labeler cannot run, or None."""
        if not self.argv:
            return "no program configured (dream.labelers.command.argv in okf/.memory/config.json)"
        if self.program is None:
            return f"labeler program {self.argv[0]!r} not found"
        return None

    def label(self, items: Sequence[Evidence]) -> LabelRun:
        run = LabelRun(usage={"program": self.argv[0] if self.argv else None, "calls": 0, "itemsSent": 0,
                              "bytesSent": 0, "bytesReceived": 0, "milliseconds": 0, "quarantined": 0,
                              "left": max(0, len(items) - self.max_items), "reported": {}})
        problem = self.unavailable()
        if problem:
            run.problems.append(problem)
            return run
        todo = list(items)[: self.max_items]
        for start in range(0, len(todo), self.batch):
            problem = self._call(todo[start:start + self.batch], run)
            if problem:
                run.problems.append(f"labeler command: {problem}")
                break
        return run

    def _call(self, batch: list[Evidence], run: LabelRun) -> str | None:
        request = canonicalize({
            "schema": "gitstore.label-request/1", "categories": list(CATEGORIES), "polarities": list(POLARITIES),
            "items": [{"id": e.id, "text": e.text, "path": e.path,
                       "kind": "session-text" if e.source == "agent-session" else "review-comment"} for e in batch],
        })
        started = time.monotonic()
        try:
            done = subprocess.run(self.argv, input=request, capture_output=True, timeout=self.timeout,
                                  env=environment(self.pass_env), check=False)
        except subprocess.TimeoutExpired:
            return f"timed out after {self.timeout}s"
        except OSError as exc:
            return f"could not start {self.argv[0]!r} ({exc.strerror})"
        finally:
            run.usage["milliseconds"] += int((time.monotonic() - started) * 1000)
        run.usage["calls"] += 1
        run.usage["itemsSent"] += len(batch)
        run.usage["bytesSent"] += len(request)
        run.usage["bytesReceived"] += len(done.stdout)
        if done.returncode != 0:
            return f"exited with code {done.returncode}: {_first_line(done.stderr)}"
        if len(done.stdout) > self.max_output_bytes:
            return f"answered {len(done.stdout)} bytes, beyond the bound of {self.max_output_bytes}"
        try:
            answer = _checked(done.stdout)
            run.labels.extend(self._labels(answer, {e.id: e for e in batch}, run))
        except GitstoreError as exc:
            return f"returned malformed output ({exc}); nothing from this call is used"
        _add_usage(run.usage["reported"], answer.get("usage", {}))
        run.judged.extend(e.id for e in batch)
        return None

    def _labels(self, answer: Mapping[str, Any], sent: Mapping[str, Evidence], run: LabelRun) -> list[Label]:
        labels: list[Label] = []
        per_item: dict[str, int] = {}
        for raw in answer["labels"]:
            evidence = sent.get(raw["id"])
            if evidence is None:
                raise InvalidInput(f"a label judges {raw['id']}, which was not sent")
            per_item[raw["id"]] = per_item.get(raw["id"], 0) + 1
            if per_item[raw["id"]] > MAX_LABELS_PER_ITEM:
                raise InvalidInput(f"more than {MAX_LABELS_PER_ITEM} labels for {raw['id']}")
            spans = tuple((int(a), int(b)) for a, b in raw.get("spans", ()))
            if any(not a < b <= len(evidence.text) for a, b in spans):
                raise InvalidInput(f"a span of the label on {raw['id']} lies outside its text")
            if default_scanner().scan(raw["theme"].replace("-", " ")).quarantined:
                run.usage["quarantined"] += 1
                continue
            labels.append(Label(raw["id"], raw["theme"], raw["category"], raw["polarity"],
                                tuple(sorted(set(spans))), self.name))
        return labels


_ANSWER = jsonschema_rs.validator_for(ANSWER_SCHEMA)


def _checked(output: bytes) -> dict[str, Any]:
    answer = parse_json(output, allow_floats=False)
    for error in _ANSWER.iter_errors(answer):
        where = "/".join(str(p) for p in error.instance_path) or "the answer"
        raise InvalidInput(f"{where}: {error.message[:200]}")
    return dict(answer)


def _add_usage(total: dict[str, Any], reported: Mapping[str, Any]) -> None:
    """Keep what a program reports about its usage, only known keys of the right type."""
    for key, kind in USAGE_KEYS.items():
        value = reported.get(key)
        if isinstance(value, kind) and not isinstance(value, bool):
            if isinstance(value, int):
                total[key] = total.get(key, 0) + min(value, 1 << 50)
            else:
                total[key] = default_scanner().scan(str(value)[:100]).text


def _first_line(data: bytes) -> str:
    line = data.decode("utf-8", "replace").strip().splitlines()[:1]
    if not line:
        return "(no message)"
    scanned = default_scanner().scan(line[0][:200])
    return "(message withheld by the safety scanner)" if scanned.quarantined else scanned.text


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}\Z")
# what names a credential: a token (GitHub's, a cloud's session), a secret, a password, a key
# (an API key, a private key), credentials, an auth socket or header, a cookie
_SECRET = re.compile(r"TOKEN|SECRET|PASS(WORD|WD|PHRASE)|CREDENTIAL|PRIVATE|AUTH|COOKIE|APIKEY|(^|_)KEYS?($|_)|"
                     r"(^|_)PAT($|_)", re.IGNORECASE)


def withheld(name: str) -> bool:
    """Whether a variable of ours is kept from the program: git's (they point at a hook's
    repository and index), GitHub Actions' own (``ACTIONS_*``: its runtime and OIDC tokens)
    and any whose name says it holds a credential."""
    return name.startswith(("GIT_", "ACTIONS_")) or bool(_SECRET.search(name))


def environment(pass_env: Sequence[str] = ()) -> dict[str, str]:
    """The program's environment: ours without what ``withheld`` names, but for the variables
    ``pass_env`` names (its model's API key, which the person configuring it chose to give)."""
    given = set(pass_env)
    return {k: v for k, v in os.environ.items() if k in given or not withheld(k)}

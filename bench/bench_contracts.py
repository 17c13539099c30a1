"""Canonicalize + digest + validate v1 records: the fast path against the reference path.

The issue: "canonicalize + digest + validate 100k records of mixed v1 kinds, fast path against
the reference path in the same run. Goal: at least 10x the reference."

Input: 100,000 records (``--records``) of all 11 v1 kinds, drawn uniformly at random with a
fixed seed. Each is a variation of the kind's valid example in ``.memory-schema/v1/examples/
valid/`` (new ids, digests, times, people, repositories, texts of varying length with some
non-ASCII, counts, and 1 to 4 items in lists of objects or ids), re-sealed with
``gitstore.seal`` and serialized as UTF-8 JSON text, half pretty-printed and half compact.

Both paths do the same work per record, from JSON text to a verdict:

- fast: ``gitstore.load_record(text)``, that is ``parse_json(text, allow_floats=False)`` then
  ``check_record``: kind and version, I-JSON walk, schema with ``jsonschema-rs``, then every
  digest the kind declares (contentDigest and reviewDigest of a learning, payloadDigest of an
  event, digest) through the fast canonicalizer (orjson, wherever the I-JSON walk proved it
  equal to the reference) and sha256.
- reference: the same strict parser, kind and version, I-JSON walk, schema with ``jsonschema``
  (``schema_errors(..., reference=True)``, as ``check_record(reference=True)`` does), then the
  same digests through ``canonicalize_reference`` (``rfc8785``) and sha256. This is spelled out
  here rather than calling ``check_record(record, reference=True)`` because that function only
  swaps the validator: its digests still go through the fast canonicalizer.
- strongest baseline: what a user could assemble from the fastest parts at hand,
  ``json.loads`` + the schema through jsonschema-rs + every declared digest through
  ``rfc8785`` and sha256, over the same subset (less checking than either path: no strict
  parser, no I-JSON walk). Goal: the fast path at least 1.0x its rate.

Timing: a pass runs one path over its records with the garbage collector paused; passes
alternate between the paths, ``--repeat`` of each, and the report takes the best pass of each
(the median is shown too, and rates in CPU time, which other processes on a busy machine
disturb less than wall-clock time). The reference is more than ten times slower, so by default
it runs over 10,000 of the records only (``--reference-records``): the first ones of each
kind, in the same kind proportions as the whole input; its throughput is extrapolated per
record, and the output says so. Memory is the process's peak resident set size
(``getrusage``), read after generating the input and after the first pass of each path.

Exit code 0 whatever the ratio (benchmark machines are noisy); the report says whether the
goal is met. ``python -m bench contracts --quick`` is a smoke test with small sizes.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import re
import resource
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import rfc8785

import gitstore
from gitstore.records import contracts
from gitstore.records.canonical import check_ijson

NAME = "contracts"
GOAL = 10.0
STRONG_GOAL = 1.0  # against the strongest baseline: at least as fast
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / ".memory-schema" / "v1" / "examples" / "valid"

_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_ID = re.compile(r"^(ep|ev|lrn)_[0-9a-f]{32}$")
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_PERSON = re.compile(r"^github:\d+$")
_COMMENT = re.compile(r"^github:comment:\d+$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

_WORDS = (
    "retry loop backoff jitter review thread comment agent session learning evidence scope "
    "commit branch cache timeout request handler parser schema record digest contract test "
    "fixture config deploy rollback migration index query lock queue worker config module "
    "function class method return error exception logging metric alert path file the a of to "
    "in and with for on uses must should never always every before after when because"
).split()
_UNICODE = ("café", "naïve", "déjà-vu", "→", "✓", "—", "日本語", "Ελληνικά", "🙂", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢")
# Longest text per member name; anything else stays within the smallest limit in the schemas.
_TEXT_LIMITS = {"title": 200, "note": 500, "reason": 500, "text": 4000, "statement": 4000}
_TEXT_DEFAULT_LIMIT = 1000
_OWNERS = ("acme", "initech", "globex", "umbrella", "hooli", "stark-industries", "wayne.ent")
_REPOS = ("widgets", "gadgets", "api", "web-app", "infra", "docs", "billing", "auth.service")


# -- input ------------------------------------------------------------------------------------

def _examples() -> dict[str, dict[str, Any]]:
    found = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in EXAMPLES.glob("*.json")}
    missing = sorted(set(gitstore.KINDS) - set(found))
    if missing:
        raise SystemExit(f"{NAME}: no valid example for kinds {', '.join(missing)} in {EXAMPLES}")
    return found


class _Varier:
    """Deterministic variations of a valid record that stay valid once re-sealed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.start = datetime(2025, 1, 1, tzinfo=UTC)
        self.span = int(timedelta(days=730).total_seconds() * 1_000_000)
        self.scope = ""
        self.repository = ""

    def record(self, example: dict[str, Any]) -> dict[str, Any]:
        owner, repo = self.rng.choice(_OWNERS), self.rng.choice(_REPOS)
        self.repository = f"{owner}/{repo}"
        self.scope = f"github.com/{self.repository}"
        varied = self.value(example, "")
        assert isinstance(varied, dict)
        return varied

    def value(self, value: Any, key: str) -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            if value and self._growable(value):
                return [self.value(value[i % len(value)], key) for i in range(self.rng.randint(1, 4))]
            return [self.value(v, key) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return self.integer(value, key)
        if isinstance(value, str):
            return self.string(value, key)
        raise TypeError(f"unexpected {type(value).__name__} in an example")

    @staticmethod
    def _growable(items: list[Any]) -> bool:
        # Lists of objects, ids or digests: every such list in v1 allows at least 32 items,
        # and fresh random ids keep uniqueItems lists unique.
        return all(isinstance(i, dict) for i in items) or all(
            isinstance(i, str) and (_DIGEST.match(i) or _ID.match(i)) for i in items
        )

    def integer(self, value: int, key: str) -> int:
        rng = self.rng
        if key == "version":
            return rng.randint(2, 50)  # version 1 would require previous to be null
        if key == "bytes":
            return rng.randint(0, 50_000_000)
        if value == 0:
            return 0 if rng.random() < 0.5 else rng.randint(0, 100)
        return rng.randint(1, 5000)

    def string(self, value: str, key: str) -> str:
        rng = self.rng
        if _DIGEST.match(value):
            return f"sha256:{rng.getrandbits(256):064x}"
        if _ID.match(value):
            return f"{value.split('_', 1)[0]}_{rng.getrandbits(128):032x}"
        if _TIME.match(value):
            moment = self.start + timedelta(microseconds=rng.randrange(self.span))
            return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        if _COMMIT.match(value):
            return f"{rng.getrandbits(160):040x}"
        if _PERSON.match(value):
            return f"github:{rng.randint(1, 99_999_999)}"
        if _COMMENT.match(value):
            return f"github:comment:{rng.randint(1, 999_999_999)}"
        if _UUID.match(value):
            return str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if value.startswith("github.com/"):
            return self.scope
        if value == "acme/widgets":
            return self.repository
        if " " in value and len(value) >= 12:
            return self.text(key)
        return value  # enums, paths, branch names, versions: kept as in the example

    def text(self, key: str) -> str:
        rng = self.rng
        count = rng.randint(3, 12) if key == "title" else rng.randint(4, 120 if key == "text" else 40)
        words = [rng.choice(_WORDS) for _ in range(count)]
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words) + 1), rng.choice(_UNICODE))
        words[0] = words[0].capitalize()
        text = " ".join(words) + "."
        return text[: _TEXT_LIMITS.get(key, _TEXT_DEFAULT_LIMIT)]


def generate(count: int, seed: int) -> tuple[list[bytes], list[str]]:
    """``count`` sealed records of uniformly mixed kinds as JSON texts, and their kinds."""
    rng = random.Random(seed)
    examples = _examples()
    kinds = sorted(gitstore.KINDS)
    varier = _Varier(rng)
    texts: list[bytes] = []
    chosen: list[str] = []
    for _ in range(count):
        kind = rng.choice(kinds)
        record = gitstore.seal(varier.record(examples[kind]))
        option = orjson.OPT_INDENT_2 if rng.random() < 0.5 else 0
        # A tight copy: orjson's own result can hold several times its length in capacity.
        texts.append(bytes(memoryview(orjson.dumps(record, option=option))))
        chosen.append(kind)
    return texts, chosen


def proportional_subset(kinds: Sequence[str], size: int) -> list[int]:
    """Indices of the first records of each kind, about ``size`` in all, in the same proportions."""
    if size >= len(kinds):
        return list(range(len(kinds)))
    quota = {k: round(n * size / len(kinds)) for k, n in Counter(kinds).items()}
    picked = []
    for index, kind in enumerate(kinds):
        if quota[kind] > 0:
            quota[kind] -= 1
            picked.append(index)
    return picked


# -- the two paths ----------------------------------------------------------------------------

def fast_path(text: bytes) -> str:
    """Parse, canonicalize, digest and validate through gitstore's default (fast) functions."""
    record = gitstore.load_record(text)
    digest: str = record["digest"]
    return digest


def _reference_digest(value: Any) -> str:
    return gitstore.sha256_digest(gitstore.canonicalize_reference(value))


def reference_path(text: bytes) -> str:
    """The same steps as ``load_record``, through rfc8785 and jsonschema."""
    record = gitstore.parse_json(text, allow_floats=False)
    kind = contracts.kind_of(record)
    check_ijson(record, allow_floats=False)
    errors = contracts.schema_errors(record, kind, reference=True)
    if errors:
        raise gitstore.ContractError(f"{kind} record fails its contract: {errors[0]}")
    return _declared_digests(record, kind, _reference_digest)


def strong_path(text: bytes) -> str:
    """What a user could assemble from the best parts at hand: ``json.loads``, the kind's
    schema through jsonschema-rs, then every digest the kind declares through ``rfc8785`` and
    sha256 (no strict parsing, no I-JSON walk: less checking than either gitstore path)."""
    record = json.loads(text)
    kind = contracts.kind_of(record)
    if not contracts._fast_validator(kind).is_valid(record):
        raise gitstore.ContractError(f"{kind} record fails its contract")
    return _declared_digests(record, kind, _rfc8785_digest)


def _declared_digests(record: dict[str, Any], kind: str, digest_of: Callable[[Any], str]) -> str:
    """Check every digest the kind declares with ``digest_of``; the record's digest."""
    rules = contracts.contract(kind)
    if kind == "learning":
        for field, fields in (("contentDigest", rules.content_fields), ("reviewDigest", rules.review_fields)):
            if record[field] != digest_of({f: record[f] for f in fields if f in record}):
                raise gitstore.ContractError(f"learning {record.get('id')}: {field} does not match")
    if kind == "event" and "payload" in record:
        if record["payloadDigest"] != digest_of(record["payload"]):
            raise gitstore.ContractError(f"event {record.get('id')}: payloadDigest does not match")
    if record["digest"] != digest_of({k: v for k, v in record.items() if k not in rules.digest_excludes}):
        raise gitstore.ContractError(f"{kind} record digest does not match its content")
    digest: str = record["digest"]
    return digest


def _rfc8785_digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def time_pass(path: Callable[[bytes], str], texts: Sequence[bytes]) -> tuple[float, float]:
    """Wall-clock and CPU seconds for one pass of ``path`` over ``texts``, the collector paused."""
    gc.collect()
    gc.disable()
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        for text in texts:
            path(text)
        return time.perf_counter() - started, time.process_time() - cpu_started
    finally:
        gc.enable()


def _sha256_lines(texts: Sequence[bytes]) -> str:
    hasher = hashlib.sha256()
    for text in texts:
        hasher.update(text)
        hasher.update(b"\n")
    return hasher.hexdigest()


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


# -- report -----------------------------------------------------------------------------------

def measure(records: int, reference_records: int, repeat: int, seed: int) -> dict[str, Any]:
    """Generate the input, check both paths agree, time them; return the numbers."""
    started = time.perf_counter()
    texts, kinds = generate(records, seed)
    generated_in = time.perf_counter() - started
    picked = proportional_subset(kinds, reference_records)
    subset = [texts[i] for i in picked]
    rss_input = peak_rss_mib()

    # Warm up (compiles validators, imports rfc8785 and jsonschema) and check on a sample that
    # the two canonicalizers give the same bytes; every timed pass then checks every record
    # (a record either path refuses raises and ends the benchmark).
    for text in subset[:500]:
        record = gitstore.parse_json(text, allow_floats=False)
        if gitstore.canonicalize(record) != gitstore.canonicalize_reference(record):
            raise AssertionError("fast and reference canonical bytes differ on a record")
        if not fast_path(text) == reference_path(text) == strong_path(text):
            raise AssertionError("fast, reference and strongest-baseline paths disagree on a record's digest")

    # Passes alternate (fast, reference, fast, ...) so that a busy spell on the machine
    # tends to hit both paths rather than one.
    fast_passes: list[tuple[float, float]] = []
    reference_passes: list[tuple[float, float]] = []
    strong_passes: list[tuple[float, float]] = []
    rss_fast = rss_reference = 0.0
    for _ in range(repeat):
        fast_passes.append(time_pass(fast_path, texts))
        rss_fast = rss_fast or peak_rss_mib()
        reference_passes.append(time_pass(reference_path, subset))
        strong_passes.append(time_pass(strong_path, subset))
        rss_reference = rss_reference or peak_rss_mib()
    fast_times = [wall for wall, _ in fast_passes]
    reference_times = [wall for wall, _ in reference_passes]
    fast_cpu_rate = len(texts) / min(cpu for _, cpu in fast_passes)
    reference_cpu_rate = len(subset) / min(cpu for _, cpu in reference_passes)

    fast_rate = len(texts) / min(fast_times)
    strong_rate = len(subset) / min(wall for wall, _ in strong_passes)
    strong_cpu_rate = len(subset) / min(cpu for _, cpu in strong_passes)
    reference_rate = len(subset) / min(reference_times)
    return {
        "records": len(texts),
        "reference_records": len(subset),
        "repeat": repeat,
        "seed": seed,
        "kinds": dict(sorted(Counter(kinds).items())),
        "reference_kinds": dict(sorted(Counter(kinds[i] for i in picked).items())),
        "input_bytes": sum(map(len, texts)),
        "input_sha256": _sha256_lines(texts),
        "generated_s": generated_in,
        "fast_s": fast_times,
        "reference_s": reference_times,
        "fast_rate": fast_rate,
        "fast_rate_median": len(texts) / statistics.median(fast_times),
        "reference_rate": reference_rate,
        "reference_rate_median": len(subset) / statistics.median(reference_times),
        "ratio": fast_rate / reference_rate,
        "strong_rate": strong_rate,
        "ratio_strong": fast_rate / strong_rate,
        "ratio_strong_cpu": fast_cpu_rate / strong_cpu_rate,
        "fast_cpu_rate": fast_cpu_rate,
        "reference_cpu_rate": reference_cpu_rate,
        "ratio_cpu": fast_cpu_rate / reference_cpu_rate,
        "ratio_median": statistics.median(reference_times) / len(subset)
        / (statistics.median(fast_times) / len(texts)),
        "goal": GOAL,
        "rss_input_mib": rss_input,
        "rss_fast_mib": rss_fast,
        "rss_reference_mib": rss_reference,
    }


def report(r: dict[str, Any]) -> str:
    mix = " ".join(f"{k}={n}" for k, n in r["kinds"].items())
    reference_mix = " ".join(f"{k}={n}" for k, n in r["reference_kinds"].items())
    sampled = r["reference_records"] < r["records"]
    lines = [
        f"input: {r['records']} records, {r['input_bytes'] / 1e6:.1f} MB of JSON text (half pretty,"
        f" half compact), seed {r['seed']}, sha256 {r['input_sha256'][:16]},"
        f" generated and sealed in {r['generated_s']:.1f}s",
        f"kinds: {mix}",
    ]
    if sampled:
        lines.append(f"kinds in the reference subset: {reference_mix}")
    lines += [
        f"fast:      gitstore.load_record over all {r['records']} records,"
        f" best of {r['repeat']}: {min(r['fast_s']):.3f}s"
        f" = {r['fast_rate']:.0f} rec/s ({1e6 / r['fast_rate']:.1f} us/rec; median {r['fast_rate_median']:.0f} rec/s)",
        "reference: rfc8785 + jsonschema over "
        + (f"{r['reference_records']} of them (same kind proportions, extrapolated per record)"
           if sampled else f"all {r['reference_records']} records")
        + f", best of {r['repeat']}: {min(r['reference_s']):.3f}s"
        f" = {r['reference_rate']:.0f} rec/s ({1e6 / r['reference_rate']:.1f} us/rec;"
        f" median {r['reference_rate_median']:.0f} rec/s)",
    ]
    if sampled:
        est = r["records"] / r["reference_rate"]
        lines.append(f"reference: {r['records']} records would take about {est:.0f}s at that rate")
    lines += [
        f"memory: peak RSS {r['rss_input_mib']:.0f} MiB after generating the input,"
        f" {r['rss_fast_mib']:.0f} MiB after a fast pass,"
        f" {r['rss_reference_mib']:.0f} MiB after a reference pass",
        f"ratio: {r['ratio']:.1f}x between the best passes, {r['ratio_median']:.1f}x between the"
        f" median passes",
        f"cpu time (less disturbed by other processes): fast {r['fast_cpu_rate']:.0f} rec/s,"
        f" reference {r['reference_cpu_rate']:.0f} rec/s, ratio {r['ratio_cpu']:.1f}x",
        f"{NAME}: fast {r['fast_rate']:.0f} rec/s, reference {r['reference_rate']:.0f} rec/s,"
        f" ratio {r['ratio']:.1f}x (goal >= {r['goal']:.0f}x): "
        + ("goal met" if r["ratio"] >= r["goal"] else "GOAL NOT MET"),
        f"{NAME}: fast {r['fast_rate']:.0f} rec/s, strongest baseline (json.loads + jsonschema-rs + rfc8785)"
        f" {r['strong_rate']:.0f} rec/s, ratio {r['ratio_strong']:.1f}x (cpu {r['ratio_strong_cpu']:.1f}x;"
        f" goal >= {STRONG_GOAL:.0f}x): " + ("goal met" if r["ratio_strong"] >= STRONG_GOAL else "GOAL NOT MET")
        + ("; gitstore is slower than the baseline" if r["ratio_strong"] < 1.0 else ""),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench contracts", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--records", type=int, help="records for the fast path (default 100000; quick 500)")
    parser.add_argument(
        "--reference-records", type=int, help="records the reference runs over (default 10000; quick 100)"
    )
    parser.add_argument("--repeat", type=int, help="timed passes per path (default 3; quick 1)")
    parser.add_argument("--seed", type=int, default=20260715, help="generator seed (default 20260715)")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    options = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    records = options.records or (500 if options.quick else 100_000)
    reference_records = options.reference_records or (100 if options.quick else 10_000)
    repeat = options.repeat or (1 if options.quick else 3)
    if min(records, reference_records, repeat) < 1:
        parser.error("--records, --reference-records and --repeat must be at least 1")
    results = measure(records, reference_records, repeat, options.seed)
    print(report(results), flush=True)
    if options.json:
        print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

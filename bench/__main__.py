"""Run the benchmarks in ``bench/``: ``python -m bench [--quick] [--list] [NAME...] [-- ARGS...]``.

Every module ``bench/bench_<name>.py`` is a benchmark. It exposes either

- ``main(argv: list[str]) -> int``: it parses ``argv`` itself (the runner passes ``--quick``
  when asked, then anything given after ``--``), prints its own report and returns an exit
  code; or
- ``run(quick: bool = False) -> dict``: it returns its results, which the runner prints as
  ``name: key=value ...`` (a ``run`` without a ``quick`` parameter is called with no argument).

With no NAME every benchmark runs, in name order. A NAME is ``<name>`` or ``bench_<name>``.
The runner's exit code is 0 when every benchmark returned 0 (or a dict), 1 otherwise, and 2
for unknown names or bad options. A benchmark that raises is reported and the others still run.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
import time
import traceback
from pathlib import Path
from typing import Any

PREFIX = "bench_"
HERE = Path(__file__).resolve().parent


def discover() -> list[str]:
    """The benchmark names found in this package (``bench_contracts`` gives ``contracts``)."""
    return sorted(
        info.name[len(PREFIX):]
        for info in pkgutil.iter_modules([str(HERE)])
        if info.name.startswith(PREFIX) and not info.ispkg
    )


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def run_one(name: str, quick: bool, extra: list[str]) -> int:
    """Import and run one benchmark; return its exit code (1 when it raised)."""
    module = importlib.import_module(f"{__package__ or 'bench'}.{PREFIX}{name}")
    main = getattr(module, "main", None)
    if callable(main):
        code = main((["--quick"] if quick else []) + extra)
        return int(code or 0)
    run = getattr(module, "run", None)
    if not callable(run):
        print(f"{name}: bench/{PREFIX}{name}.py has neither main(argv) nor run()", file=sys.stderr)
        return 1
    if extra:
        print(f"{name}: run() takes no arguments; ignoring {' '.join(extra)}", file=sys.stderr)
    params = inspect.signature(run).parameters
    results = run(quick=quick) if "quick" in params else run()
    if isinstance(results, dict):
        print(f"{name}: " + " ".join(f"{k}={_format(v)}" for k, v in results.items()))
    elif results is not None:
        print(f"{name}: {results}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1:]
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Run gitstore's benchmarks (bench/bench_*.py)."
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    options = parser.parse_args(args)

    available = discover()
    if options.list:
        print("\n".join(available))
        return 0
    wanted = [n[len(PREFIX):] if n.startswith(PREFIX) else n for n in options.names] or available
    unknown = [n for n in wanted if n not in available]
    if unknown:
        print(
            f"python -m bench: unknown benchmark {', '.join(unknown)}"
            f" (available: {', '.join(available) or 'none'})",
            file=sys.stderr,
        )
        return 2

    failed: list[str] = []
    for name in wanted:
        print(f"== {name}{' (quick)' if options.quick else ''}", flush=True)
        started = time.perf_counter()
        try:
            code = run_one(name, options.quick, extra)
        except SystemExit as exc:  # a benchmark's own argument parser gave up
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception:  # one broken benchmark must not hide the others
            traceback.print_exc()
            code = 1
        elapsed = time.perf_counter() - started
        print(f"== {name}: {'ok' if code == 0 else f'FAILED (exit {code})'} in {elapsed:.1f}s", flush=True)
        if code != 0:
            failed.append(name)
    if len(wanted) > 1:
        print(f"== {len(wanted) - len(failed)}/{len(wanted)} benchmarks ok"
              + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

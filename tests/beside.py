"""A second run of a command started in a window of a first, as another process starts one.

``Beside(run, monkeypatch, module)`` starts ``run`` in a thread and returns once it has either
finished or reached the lock ``module`` takes through its ``held`` (``gitstore._files.held``):
code without that lock lets it run to its end inside the window, as a process started at that
moment could; code with it has it wait there until the first run lets the lock go. ``result()``
then waits for it and gives what it returned (or raises what it raised). ``flock`` holds two
threads of one process apart as it holds two processes: each opens the file anew.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gitstore._files import held

LONGEST = 120.0  # seconds a stuck run is waited for before the test fails saying so (never a measure)


class Beside:
    def __init__(self, run: Callable[[], Any], monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        self.stopped = threading.Event()  # finished, or waiting for the lock
        self.waited = False
        self._value: Any = None
        self._error: BaseException | None = None
        thread_ids: list[int] = []

        @contextmanager
        def waiting(path: str | Path, *args: Any) -> Iterator[bool]:
            if threading.get_ident() in thread_ids:
                self.waited = True
                self.stopped.set()
            with held(path, *args) as taken:
                yield taken

        def second() -> None:
            thread_ids.append(threading.get_ident())
            try:
                self._value = run()
            except BaseException as exc:  # noqa: BLE001 - handed to the test by result()
                self._error = exc
            finally:
                self.stopped.set()

        monkeypatch.setattr(module, "held", waiting, raising=False)
        self._thread = threading.Thread(target=second, daemon=True)
        self._thread.start()
        assert self.stopped.wait(LONGEST), "the second run neither ended nor reached the lock"

    def result(self) -> Any:
        self._thread.join(LONGEST)
        assert not self._thread.is_alive(), "the second run never ended"
        if self._error is not None:
            raise self._error
        return self._value

"""``gitstore init`` run twice at once in one repository (two ``hooks install`` of a project's
harnesses each run one): the second waits for the first and takes the configuration it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.config import CONFIG_NAME, STATE_DIR, parse_config
from gitstore.ops import setup

from .beside import Beside
from .conftest import git


def test_a_second_init_started_while_the_first_writes_the_configuration_takes_the_first_ones(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both found no configuration, each wrote one with a writer id of its own and reported it
    as the clone's (only the last written held), and both added the fetch refspecs git's
    configuration lacked."""
    write = setup.write_config
    second: list[Beside] = []
    started: list[bool] = []

    def started_meanwhile(*args: object) -> None:
        if not started:  # the first found no configuration and is about to write one
            started.append(True)
            second.append(Beside(lambda: setup.init(repo), monkeypatch, setup))
        write(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(setup, "write_config", started_meanwhile)
    first = setup.init(repo)
    other = second[0].result()
    config = parse_config(repo / STATE_DIR / CONFIG_NAME, (repo / STATE_DIR / CONFIG_NAME).read_bytes())
    assert first.writer == other.writer == config.writer, (first.writer, other.writer, config.writer)
    assert not [line for line in other.created if "refspec" in line or CONFIG_NAME in line], other.created
    specs = git(repo, "config", "--get-all", "remote.origin.fetch").split()
    assert len(specs) == len(set(specs)), specs
    assert second[0].waited, "the second init waited for the first"

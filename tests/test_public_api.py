"""The public API: every name in ``__all__`` exists, every package lists its public modules, and
one exception root with narrow subclasses carries the exit codes the CLI uses."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import gitstore
from gitstore import errors
from gitstore.cli import main

PACKAGES = sorted(
    info.name for info in pkgutil.walk_packages(gitstore.__path__, "gitstore.") if info.ispkg
)


def test_every_top_level_name_resolves() -> None:
    for name in gitstore.__all__:
        assert getattr(gitstore, name) is not None, name
    assert set(dir(gitstore)) == set(gitstore.__all__)
    with pytest.raises(AttributeError):
        gitstore.no_such_name  # noqa: B018


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_has_a_public_api_and_a_module_list_is_whole(package: str) -> None:
    """A package's ``__all__`` names what it exports, or (a package of stage modules) every
    public module it holds."""
    module = importlib.import_module(package)
    folder = Path(module.__file__).parent
    modules = {info.name for info in pkgutil.iter_modules([str(folder)]) if not info.name.startswith("_")}
    exported = set(module.__all__)
    for name in exported:
        assert name in modules or hasattr(module, name), f"{package}.__all__ names {name}, which is not there"
    if exported <= modules:  # a package of stage modules
        assert exported == modules, f"{package}.__all__ leaves out {sorted(modules - exported)}"


HIERARCHY = {
    errors.InvalidInput: (errors.GitstoreError, 1),
    errors.CanonicalizationError: (errors.InvalidInput, 1),
    errors.ContractError: (errors.InvalidInput, 1),
    errors.Refused: (errors.GitstoreError, 1),
    errors.NotAuthorised: (errors.Refused, 1),
    errors.AlreadyDone: (errors.Refused, 1),
    errors.ConflictError: (errors.GitstoreError, 1),
    errors.Incomplete: (errors.GitstoreError, 1),
    errors.UsageError: (errors.GitstoreError, 2),
    errors.NotARepository: (errors.UsageError, 2),
    errors.IntegrityError: (errors.GitstoreError, 3),
}


def test_the_exception_hierarchy() -> None:
    assert issubclass(errors.GitstoreError, Exception) and errors.GitstoreError.exit_code == 1
    assert set(errors.__all__) == {c.__name__ for c in HIERARCHY} | {"GitstoreError"}
    for cls, (parent, code) in HIERARCHY.items():
        assert cls.__bases__ == (parent,), cls
        assert cls.exit_code == code, cls
        assert getattr(gitstore, cls.__name__) is cls


def test_messages_are_one_line() -> None:
    error = errors.Refused("a refusal\n  spread over\tlines")
    assert str(error) == error.message == "a refusal spread over lines"


@pytest.mark.parametrize("cls", [errors.GitstoreError, *HIERARCHY])
def test_the_cli_maps_each_to_its_exit_code(cls: type[errors.GitstoreError], monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise cls(f"{cls.__name__} raised")

    monkeypatch.setattr("gitstore.cli._app.run", fail)
    assert main(["status"]) == cls.exit_code
    assert capsys.readouterr().err == f"gitstore: error: {cls.__name__} raised\n"

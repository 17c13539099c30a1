"""Providers: built-ins in a dict, third-party ones by the ``gitstore.providers`` entry point."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from gitstore.errors import Refused, UsageError
from gitstore.providers._base import (
    NAMESPACES,
    OPTIONAL_CAPABILITIES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    AttestingProvider,
    Attestation,
    Batch,
    CausalProvider,
    CollectingProvider,
    Entry,
    GcReport,
    Manifest,
    PausingProvider,
    Problem,
    Provider,
    QuarantiningProvider,
    RedactingProvider,
    RememberingProvider,
    Removal,
    SnapshotProvider,
    Stored,
    Stream,
    StreamingProvider,
    StreamReadingProvider,
    TrustMode,
    BytesMemoryProvider,
    VerifyReport,
    missing_capabilities,
)

if TYPE_CHECKING:
    import pygit2

# name -> (module, class, how the location is derived from the state folder)
BUILTIN: dict[str, tuple[str, str]] = {
    "git": ("gitstore.providers.git", "GitProvider"),
    "sqlite": ("gitstore.providers.sqlite", "SqliteProvider"),
    "jsonl": ("gitstore.providers.jsonl", "JsonlProvider"),
    "memory": ("gitstore.providers.memory", "MemoryProvider"),
}


def provider_factory(name: str) -> Callable[..., Provider]:
    """The class (or factory) that builds provider ``name``."""
    if name in BUILTIN:
        module, attr = BUILTIN[name]
        return getattr(import_module(module), attr)  # type: ignore[no-any-return]
    from importlib.metadata import entry_points  # only for providers other packages bring

    for found in entry_points(group="gitstore.providers"):
        if found.name == name:
            return found.load()  # type: ignore[no-any-return]
    raise UsageError(f"unknown provider {name!r}")


def open_provider(name: str, root: Path, state: Path, writer: str) -> Provider:
    """Open the configured provider for a repository and check its manifest."""
    factory = provider_factory(name)
    if name in STORE_FILES:
        refuse_links_on_the_way(root, state, name)
        refuse_foreign_store(root, state, name)
    if name == "git":
        provider = factory(root, writer)
    elif name == "sqlite":
        provider = factory(state / "store.sqlite", writer)
    elif name == "jsonl":
        provider = factory(state / "jsonl", writer)
    elif name == "memory":
        provider = factory(writer)
    else:
        provider = factory(root=root, state=state, writer=writer)
    require_capabilities(provider)
    return provider


# the files of each work-tree store, relative to the state folder: every one is the clone's own
STORE_FILES: dict[str, tuple[str, ...]] = {
    "sqlite": ("store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal", "store.sqlite.acks"),
    "jsonl": ("jsonl",),
}


def refuse_links_on_the_way(root: Path, state: Path, name: str) -> None:
    """Refuse a work-tree store reached through a symbolic link anywhere from the work tree
    down (``okf``, ``okf/.memory``, the store's own files): a commit can put one there, and a
    write through it lands wherever it points."""
    from gitstore._files import link_on_the_way

    for file in STORE_FILES[name]:
        try:
            parts = (state / file).relative_to(root).parts
        except ValueError:
            continue
        link = link_on_the_way(str(root), *parts)
        if link is not None:
            raise Refused(f"{link} is a symbolic link; gitstore never writes through one: delete it (`rm`), "
                          "then run the command again")


def refuse_foreign_store(root: Path, state: Path, name: str) -> None:
    """Refuse a work-tree store whose files came through git, before anything opens them.

    The state folder is ignored, but a commit made with ``git add -f`` is checked out over a
    clone's ignored files without a word: a database, a log or a WAL file another person
    committed would become this clone's memory (sqlite replays a WAL or journal into the
    database on open, then deletes it, leaving no trace). So neither the commit checked out
    nor the index may hold any of the store's files: a merge, a squash or a cherry-pick that
    stops before its commit (a conflict elsewhere, ``--no-commit``) has already written the
    incoming files into the work tree and the index, and only the commit would hold them.
    A file git merely has as an object proves nothing: ``git stash --all`` stores this clone's
    own. Cheap: a tree lookup and a read of the index (these providers alone pay it)."""
    import pygit2

    from gitstore.config import committed

    try:
        repo = pygit2.Repository(str(root))
    except pygit2.GitError:
        return  # no repository: nothing can check a file out here
    staged = _staged(repo, root, state)
    for file in STORE_FILES[name]:
        path = state / file
        if committed(repo, path):
            raise Refused(_foreign_message(root, path, "the commit checked out holds it"))
        if staged(file):
            raise Refused(_foreign_message(root, path, "the index holds it: a merge or cherry-pick brought it"))


def _staged(repo: pygit2.Repository, root: Path, state: Path) -> Callable[[str], bool]:
    """Whether the index holds a file of the state folder, or anything under a folder of it."""
    import pygit2

    try:
        prefix = state.resolve().relative_to(root.resolve()).as_posix() + "/"
        entries = [entry.path for entry in repo.index if entry.path.startswith(prefix)]
    except (ValueError, pygit2.GitError, OSError):  # outside the work tree, or no index yet
        entries = []
    return lambda file: any(path == prefix + file or path.startswith(prefix + file + "/") for path in entries)


def _foreign_message(root: Path, path: Path, why: str) -> str:
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    return (f"{shown} came through git ({why}): the store's files are this clone's own, and ones a commit "
            "brings would replace its memory, so the store is not opened; stop tracking them with "
            f"`git rm -r -q --cached :/{shown}` and a commit, move the file away, then run `gitstore verify`")


def require_capabilities(provider: Provider) -> Manifest:
    """Refuse a provider whose manifest lacks a required capability."""
    manifest = provider.manifest()
    missing = missing_capabilities(manifest)
    if missing:
        raise Refused(f"provider {manifest.name!r} lacks required capabilities: {', '.join(missing)}")
    return manifest


__all__ = [
    "BUILTIN",
    "STORE_FILES",
    "NAMESPACES",
    "OPTIONAL_CAPABILITIES",
    "REQUIRED_CAPABILITIES",
    "AppendResult",
    "AttestingProvider",
    "Attestation",
    "Batch",
    "CausalProvider",
    "CollectingProvider",
    "Entry",
    "GcReport",
    "Manifest",
    "PausingProvider",
    "Problem",
    "Provider",
    "QuarantiningProvider",
    "RedactingProvider",
    "RememberingProvider",
    "Removal",
    "SnapshotProvider",
    "Stored",
    "Stream",
    "StreamingProvider",
    "StreamReadingProvider",
    "TrustMode",
    "BytesMemoryProvider",
    "VerifyReport",
    "missing_capabilities",
    "open_provider",
    "provider_factory",
    "refuse_foreign_store",
    "require_capabilities",
]

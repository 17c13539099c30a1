"""Providers: built-ins in a dict, third-party ones by the ``gitstore.providers`` entry point."""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitstore.errors import Refused, UsageError
from gitstore.providers import _anchor
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
        provider = _work_tree_store(name, factory, root, state, writer)
    elif name == "git":
        provider = factory(root, writer)
    elif name == "memory":
        provider = factory(writer)
    else:
        provider = factory(root=root, state=state, writer=writer)
    require_capabilities(provider)
    return provider


def _work_tree_store(name: str, factory: Callable[..., Provider], root: Path, state: Path,
                     writer: str) -> Provider:
    """Open a sqlite or jsonl store once nothing says its files came from elsewhere: not
    through a link, not from git (a commit, the index, a submodule, another repository), and
    holding no append gitstore did not write for this clone (see ``_anchor``)."""
    refuse_links_on_the_way(root, state, name)
    git_dir = refuse_foreign_store(root, state, name)
    anchor = None if git_dir is None else _anchor.anchor_path(git_dir, name)
    held = None if anchor is None else _anchor.anchored(anchor)
    if name == "sqlite":
        provider = factory(state / "store.sqlite", writer,
                           vouching=None if anchor is None else _anchor.acked_path(anchor))
    else:
        provider = factory(state / "jsonl", writer, identity=held or _anchor.new_store_id(),
                           inflight=None if anchor is None else _anchor.inflight_path(anchor))
    if anchor is None:
        return provider
    try:
        linked = git_dir is not None and (Path(git_dir) / "commondir").exists()  # git worktree add
        _take_as_own(name, provider, anchor, held, writer, _shown(root, state / STORE_FILES[name][0]),
                     _accepted_writer(git_dir), linked=linked)
    except BaseException:
        if name == "sqlite":
            provider.close()  # type: ignore[attr-defined]
        raise
    return provider


def _accepted_writer(git_dir: str | None) -> str | None:
    """The writer of the config.json ``gitstore init`` accepted for this work tree, as its git
    folder keeps it (``gitstore.config.accept_config``), for a store made before anchors to be
    taken as this clone's; None in a linked work tree (``git worktree add``), where no version
    made a store before anchors did, and where a config.json naming the main tree's writer id
    (no secret) is accepted for that id alone: a patch bringing it with a store claiming that
    id would otherwise have the store adopted."""
    from gitstore.config import accepted_writer

    if git_dir is None or (Path(git_dir) / "commondir").exists():
        return None
    return accepted_writer(git_dir)


def _take_as_own(name: str, provider: Any, anchor: Path, held: str | None, writer: str, shown: str,
                 accepted: str | None, linked: bool = False) -> None:
    """Refuse a store holding appends gitstore did not write for this clone; else anchor its
    id, when the store is new (or made before anchors: all by ``writer``, the writer of the
    configuration init ``accepted``), and have it name that id."""
    moving = f"mv {shown} {shown}.foreign" if name == "jsonl" else f"mv {shown}* <elsewhere>/"
    _anchor.refuse_unowned(provider, held, writer, shown, moving, anchor, adopts=accepted == writer, linked=linked)
    if name == "jsonl":  # the id lives in the store's log
        if held is None:
            provider.identity = _anchor.claim(anchor, provider.identity)
        provider.name_store()
        provider.vouch_store()  # from now on the git folder, not the log beside the files, vouches
    elif held is None:  # sqlite: the id lives in the database
        if _anchor.claim(anchor, provider.store_id()) != provider.store_id():  # another file anchored meanwhile
            _anchor.refuse_unowned(provider, _anchor.anchored(anchor), writer, shown, moving, anchor)
    elif held != provider.store_id():  # it holds no append (else refused above): a store made again
        _anchor.reanchor(anchor, provider.store_id())
    if name == "sqlite":
        provider.vouch_store()  # from now on the git folder vouches for its appends


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


def refuse_foreign_store(root: Path, state: Path, name: str) -> str | None:
    """Refuse a work-tree store whose files came through git, before anything opens them; the
    work tree's own git folder (None: no repository, where nothing can check a file out).

    The state folder is ignored, but a commit made with ``git add -f`` is checked out over a
    clone's ignored files without a word: a database, a log or a WAL file another person
    committed would become this clone's memory (sqlite replays a WAL or journal into the
    database on open, then deletes it, leaving no trace). So neither the commit checked out
    nor the index may hold any of the store's files: a merge, a squash or a cherry-pick that
    stops before its commit (a conflict elsewhere, ``--no-commit``) has already written the
    incoming files into the work tree and the index, and only the commit would hold them.
    Nor may the files be another repository's (a submodule, whose files this repository's
    trees never hold, or a repository cloned into the work tree).
    A file git merely has as an object proves nothing: ``git stash --all`` stores this clone's
    own. Cheap: a few tree lookups and a read of the index (these providers alone pay it)."""
    import pygit2

    from gitstore.config import committed

    try:
        repo = pygit2.Repository(str(root))
    except pygit2.GitError:
        return None  # no repository: nothing can check a file out here
    refuse_other_repositories(repo, root, state, name)
    staged = _staged(repo, root, state)
    for file in STORE_FILES[name]:
        path = state / file
        if committed(repo, path):
            raise Refused(_foreign_message(root, path, "the commit checked out holds it"))
        if staged(file):
            raise Refused(_foreign_message(root, path, "the index holds it: a merge or cherry-pick brought it"))
    return str(repo.path)


def refuse_other_repositories(repo: pygit2.Repository, root: Path, state: Path, name: str) -> None:
    """Refuse a store whose files another repository brings: a folder on the way from the work
    tree down to them is a submodule (a gitlink in the commit checked out or in the index: the
    superproject's trees end there, so no lookup of the files finds them), or the state folder
    lies inside another repository's work tree, submodule or not."""
    for way in _ways_down(root, state, name):
        why = _gitlink(repo, way)
        if why is not None:
            raise Refused(f"{way} is a submodule ({why}): the store's files would be another repository's, so the "
                          "store is not opened; use the git provider, which keeps memory out of the work tree, or "
                          f"keep {way} out of submodules, then run the command again")
    other = _repository_holding(state)
    if other is not None and not _same_folder(other, repo.path):
        raise Refused(f"{_shown(root, state)} is inside another repository (its git folder {other}): the store's "
                      "files would be that repository's, so the store is not opened; move that repository out of "
                      "the work tree, then run the command again")


def _ways_down(root: Path, state: Path, name: str) -> list[str]:
    """Every path from the work tree down to the store's files (``okf``, ``okf/.memory``, ...),
    as git names them."""
    ways: dict[str, None] = {}
    for file in STORE_FILES[name]:
        try:
            parts = (state / file).relative_to(root).parts
        except ValueError:
            continue
        ways.update((("/".join(parts[:end])), None) for end in range(1, len(parts) + 1))
    return list(ways)


def _gitlink(repo: pygit2.Repository, way: str) -> str | None:
    """Where git holds ``way`` as a submodule, if it does."""
    import pygit2

    try:
        if repo.head.peel(pygit2.Tree)[way].filemode == pygit2.enums.FileMode.COMMIT:
            return "the commit checked out holds it as one"
    except (KeyError, pygit2.GitError):  # not there (or under a file or a submodule), or no commit yet
        pass
    try:
        if repo.index[way].mode == pygit2.enums.FileMode.COMMIT:
            return "the index holds it as one"
    except (KeyError, pygit2.GitError, OSError):
        pass
    return None


def _repository_holding(state: Path) -> str | None:
    """The git folder of the repository whose work tree holds ``state`` (or, before it is
    made, its nearest folder that exists)."""
    import pygit2

    folder = state
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    try:
        return pygit2.discover_repository(str(folder))
    except pygit2.GitError:
        return None


def _same_folder(one: str, other: str) -> bool:
    return Path(one).resolve() == Path(other).resolve()


def _staged(repo: pygit2.Repository, root: Path, state: Path) -> Callable[[str], bool]:
    """Whether the index holds a file of the state folder, or anything under a folder of it:
    spelled in any case where the file system folds it (macOS's and Windows' by default check a
    merge's ``okf/.MEMORY/store.sqlite`` out as ``okf/.memory/store.sqlite``), as the same
    path only where it does (``_names_here``)."""
    import pygit2

    try:
        prefix = state.resolve().relative_to(root.resolve()).as_posix() + "/"
        folded = prefix.casefold()
        entries = [entry.path for entry in repo.index if entry.path.casefold().startswith(folded)]
    except (ValueError, pygit2.GitError, OSError):  # outside the work tree, or no index yet
        entries = []

    def staged(file: str) -> bool:
        name = (prefix + file).casefold()
        return any(_names_here(root, path[:len(prefix + file)], prefix + file) for path in entries
                   if path.casefold() == name or path.casefold().startswith(name + "/"))
    return staged


def _names_here(root: Path, path: str, spelled: str) -> bool:
    """Whether git's ``path`` names the work tree's ``spelled`` (both from ``root``, equal but
    for case) on this file system: the same spelling, or one the file system takes for it."""
    if path == spelled:
        return True
    try:
        return os.path.samefile(root / path, root / spelled)
    except OSError:  # not both there: another file where case counts, and nothing to read where it does not
        return False


def _shown(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _foreign_message(root: Path, path: Path, why: str) -> str:
    shown = _shown(root, path)
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
    "refuse_other_repositories",
    "require_capabilities",
]

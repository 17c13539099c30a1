"""Importing pygit2 without parsing the system's CA bundle.

gitstore talks to remotes through the git command line only (``git fetch``, ``git push``):
libgit2 never opens a TLS connection in a gitstore process. Importing pygit2 nevertheless hands
the CA bundle (``ssl.get_default_verify_paths().cafile``, ``/etc/ssl/certs/ca-certificates.crt``
on Debian and Ubuntu) to libgit2, which parses every certificate in it: about 10 ms, as much as
the rest of pygit2's import, paid by every command and every capture.

gitstore's own programs (the CLI, the capture hook) call ``install()`` before anything imports
pygit2, or ``load()`` to import it there and then. The first import of pygit2 then runs with
``SSL_CERT_FILE`` naming the null device, which is not a file, so only the CA folder is handed
over (a folder is searched when a certificate is verified, not read in advance); the variable is
put back as it was once pygit2 is imported, so child processes, git among them, see the
environment unchanged. Where there is no CA folder, pygit2 is imported as it is (it fails to
import when it is given neither). A library user's process, which does not call these, keeps
pygit2's own settings, as does a process that imported pygit2 already.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any

CA_FILE = "SSL_CERT_FILE"


def install() -> None:
    """Have this process's first ``import pygit2``, wherever it happens, skip the CA bundle."""
    if "pygit2" not in sys.modules and not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def load() -> None:
    """Import pygit2 now, skipping the CA bundle (see ``install``)."""
    install()
    import pygit2  # noqa: F401


class _Finder:
    """Finds pygit2 once, the way the rest of the import system would, and has it run by a
    loader that hides the CA file for the time of the import."""

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name != "pygit2":
            return None
        sys.meta_path.remove(self)  # one import only; pygit2's own modules are found as usual
        from importlib.util import find_spec

        spec = find_spec(name)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader)
        return spec


class _Loader:
    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = module.__spec__.loader = self.loader  # the module keeps its own loader
        if _ca_folder() is None:
            self.loader.exec_module(module)
            return
        before = os.environ.get(CA_FILE)
        os.environ[CA_FILE] = os.devnull
        try:
            self.loader.exec_module(module)
        finally:
            if before is None:
                os.environ.pop(CA_FILE, None)
            else:
                os.environ[CA_FILE] = before


def _ca_folder() -> str | None:
    import ssl

    return ssl.get_default_verify_paths().capath

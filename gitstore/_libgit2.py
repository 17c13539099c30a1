"""Importing pygit2 without parsing the system's CA bundle or loading Python's ``ssl`` module.

gitstore talks to remotes through the git command line only (``git fetch``, ``git push``):
libgit2 never opens a TLS connection in a gitstore process. Importing pygit2 nevertheless pays
for TLS twice. Loading libgit2 sets up its OpenSSL, which reads the CA bundle that
``SSL_CERT_FILE`` names, and pygit2 imports ``ssl`` only to ask ``get_default_verify_paths()``
where the CA certificates are and hand the answer to libgit2, which reads the bundle it is
given: every certificate in it parsed, about 10 ms (``/etc/ssl/certs/ca-certificates.crt`` on
Debian and Ubuntu), and ``ssl``'s Python half (its enumerations, ``socket``) about 5 ms more.

gitstore's own programs (the CLI, the capture hook) call ``install()`` before anything imports
pygit2, or ``load()`` to import it there and then. pygit2's first import then runs with
``SSL_CERT_FILE`` naming the null device, which is not a file, and finds, in place of ``ssl``, a
stand-in whose ``get_default_verify_paths`` answers as ``ssl``'s does (the same OpenSSL
defaults, from ``_ssl``, shadowed by the same environment variables): so only the CA folder is
handed over, and a folder is searched when a certificate is verified, not read in advance.
Anything else asked of the stand-in is answered by the real module. Once pygit2 is imported,
both are put back: ``import ssl`` gets the real module (or the one that was there), and child
processes, git among them, see the environment unchanged. Where there is no CA folder the
variable is left alone and the file is handed over (pygit2 fails to import when it is given
neither). A library user's process, which does not call these, keeps pygit2's own settings, as
does a process that imported pygit2 already.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any, NamedTuple

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
    loader that hides the CA file and stands in for ``ssl`` for the time of the import."""

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
        real, ca_file = sys.modules.get("ssl"), os.environ.get(CA_FILE)
        try:
            stand_in = _stand_in(real)
        except ImportError:  # a Python without OpenSSL: pygit2 says what it lacks
            self.loader.exec_module(module)
            return
        hide = stand_in.get_default_verify_paths().capath is not None
        sys.modules["ssl"] = stand_in
        if hide:
            os.environ[CA_FILE] = os.devnull
        try:
            self.loader.exec_module(module)
        finally:
            if sys.modules.get("ssl") is stand_in:
                _put_back(sys.modules, "ssl", real)
            if hide:
                _put_back(os.environ, CA_FILE, ca_file)


def _put_back(mapping: Any, key: str, value: Any) -> None:
    if value is None:
        mapping.pop(key, None)
    else:
        mapping[key] = value


def _stand_in(real: ModuleType | None) -> ModuleType:
    """A module answering ``get_default_verify_paths`` as ``ssl`` does, and anything else from
    REAL, the ``ssl`` module imported already, or imported at first use."""
    import _ssl
    from collections import namedtuple
    from types import ModuleType

    fields = "cafile capath openssl_cafile_env openssl_cafile openssl_capath_env openssl_capath"
    paths = namedtuple("DefaultVerifyPaths", fields)  # ssl's fields
    module = ModuleType("ssl", "Stands in for ssl while pygit2 is imported (gitstore._libgit2).")

    def get_default_verify_paths() -> NamedTuple:
        parts = _ssl.get_default_verify_paths()
        cafile = os.environ.get(parts[0], parts[1])  # the environment shadows OpenSSL's defaults
        capath = os.environ.get(parts[2], parts[3])
        return paths(cafile if os.path.isfile(cafile) else None, capath if os.path.isdir(capath) else None, *parts)

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (``__path__``)
            raise AttributeError(name)
        if real is not None:
            return getattr(real, name)
        if sys.modules.get("ssl") is module:
            del sys.modules["ssl"]
        import importlib

        return getattr(importlib.import_module("ssl"), name)

    module.DefaultVerifyPaths = paths  # type: ignore[attr-defined]
    module.get_default_verify_paths = get_default_verify_paths  # type: ignore[attr-defined]
    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module

"""gitstore: a git-native memory for coding agents and the people who review them."""

from ._canonical import canonicalize, canonicalize_reference, parse_json, sha256_digest
from ._time import format_time, normalize_time, parse_time
from ._version import __version__
from .contracts import (
    KINDS,
    check_record,
    content_digest,
    digest_of,
    kind_of,
    load_record,
    payload_digest,
    review_digest,
    seal,
)
from .errors import (
    CanonicalizationError,
    ConflictError,
    ContractError,
    GitstoreError,
    IntegrityError,
    InvalidInput,
    NotARepository,
    Refused,
    UsageError,
)

__all__ = [
    "KINDS",
    "CanonicalizationError",
    "ConflictError",
    "ContractError",
    "GitstoreError",
    "IntegrityError",
    "InvalidInput",
    "NotARepository",
    "Refused",
    "UsageError",
    "__version__",
    "canonicalize",
    "canonicalize_reference",
    "check_record",
    "content_digest",
    "digest_of",
    "format_time",
    "kind_of",
    "load_record",
    "normalize_time",
    "parse_json",
    "parse_time",
    "payload_digest",
    "review_digest",
    "seal",
    "sha256_digest",
]

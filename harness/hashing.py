"""Content hashes. Everything that can change a result is hashed the same way, so two
manifests can be compared field by field."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable, Mapping


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode())


def sha256_json(obj: object) -> str:
    """Hash of a JSON-able value with sorted keys, so dict order never matters."""
    return sha256_text(json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str))


def hash_files(files: Mapping[str, bytes]) -> str:
    """Hash of a set of named files: names and contents, independent of order."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0")
        h.update(hashlib.sha256(files[name]).digest())
    return h.hexdigest()


def hash_paths(root: Path, relative: Iterable[str]) -> str:
    return hash_files({rel: (root / rel).read_bytes() for rel in relative})

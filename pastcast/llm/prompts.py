"""Versioned prompts, package data (``pastcast/prompts/*.toml``) found with ``importlib.resources``."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template
from typing import Any




PROMPTS_DIR: Traversable = files("pastcast") / "prompts"  # package data: in a checkout and in a wheel


@dataclass(frozen=True)
class Prompt:
    """A versioned prompt file: templates ($names) plus the call's parameters."""

    name: str
    version: str
    system: str
    user: str
    temperature: float
    max_tokens: int
    schema: str  # name of the pydantic model its reply must match
    sha256: str  # of the file's bytes

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.sha256[:12]}"

    def messages(self, inputs: Mapping[str, Any]) -> list[dict]:
        values = {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in inputs.items()}
        try:
            return [{"role": "system", "content": Template(self.system).substitute(values)},
                    {"role": "user", "content": Template(self.user).substitute(values)}]
        except KeyError as exc:
            raise ValueError(f"prompt {self.name}: no value for ${exc.args[0]}") from None


def load_prompt(name: str, folder: str | Path | Traversable | None = None) -> Prompt:
    """The prompt ``name`` from ``folder``, by default the package's own prompts; its hash is
    the sha256 of the file's bytes, wherever the file is read from."""
    base = PROMPTS_DIR if folder is None else Path(folder) if isinstance(folder, (str, os.PathLike)) else folder
    path = base / f"{name}.toml"
    raw = path.read_bytes()
    try:
        spec = tomllib.loads(raw.decode("utf-8"))
        return Prompt(name=spec.get("name", name), version=str(spec["version"]), system=spec["system"],
                      user=spec["user"], temperature=float(spec.get("temperature", 0.0)),
                      max_tokens=int(spec.get("max_tokens", 1024)), schema=spec["schema"],
                      sha256=hashlib.sha256(raw).hexdigest())
    except (KeyError, ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not a valid prompt file: {exc!r}") from exc



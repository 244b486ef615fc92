"""Template families: a title with what varies between look-alike questions masked, so one
template over many series or entities reads as one kind of question ("Will X's close on D be
higher than on D0?"). Used by the question filter's family cap and by the base-rate baseline.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d[\d,.\-/:]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’")
_WORD = re.compile(r"\b[^\W\d_][\w\-&.]*")
_NAMES = re.compile(r"N(?:\s+N)+")  # consecutive capitalised words are one name
_JOINED_NAMES = re.compile(r"N(?:\s*[–—-]\s*N)+")  # "Heathrow – London" is one name


def template_family(title: str) -> str:
    """The title with numbers (#), quoted strings (Q) and capitalised names (N) masked."""
    masked = _QUOTED.sub("Q", _NUMBER.sub("#", title or ""))
    # a capital in any cased script (Latin, Cyrillic, Greek, ...); scripts without case keep their names
    masked = _NAMES.sub("N", _WORD.sub(lambda w: "N" if w[0][0].isupper() else w[0], masked))
    return " ".join(_JOINED_NAMES.sub("N", masked).split())

"""pastcast's own question columns (``pastcast.schemas.QUESTIONS``) as JSON lines: one object a
line, dates as ``YYYY-MM-DD``, lists as JSON arrays. ``question_id``, ``title``, ``answer`` and
``resolution_date`` are required; a missing ``generator`` is ``import:jsonl``, a missing
``source_ids`` ``jsonl:<question_id>``. Another peer's JSON lines come in by naming its columns
(or paths into its nested JSON) with ``--map FIELD=PATH`` (``pastcast.questions.peers.mapping``;
docs/peer-imports.md)."""

from __future__ import annotations

from pastcast.questions.peers.common import Columns
from pastcast.schemas import QUESTIONS

FORMAT = "jsonl"

COLUMNS = Columns(FORMAT, {c: (c,) for c in QUESTIONS}, source_kind="news")

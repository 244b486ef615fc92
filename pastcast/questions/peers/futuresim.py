"""FutureSim custom datasets (OpenForecaster/futuresim, README "Custom Data":
``--dataset custom --dataset_path <file-or-dir>``): CSV, JSON lines, JSON or Parquet, one row a
question, named by FutureSim's aliases (the first present wins, in FutureSim's order):

| pastcast column | FutureSim column (aliases) |
|---|---|
| ``question_id`` | ``qid``, ``question_id``, ``id`` |
| ``title`` | ``title``, ``question_title``, ``question`` |
| ``resolution_date`` | ``resolution_date``, ``close_time``, ``resolve_time`` |
| ``answer`` | ``ground_truth_answer``, ``ground_truth``, ``answer``, ``resolution``, ``resolved_to`` |
| ``background``, ``resolution_criteria`` | ``background``; ``resolution_criteria``, ``criteria``, ``body``, ``description`` |
| ``answer_type`` | ``answer_type``, ``type``, ``question_type`` |
| ``candidate_outcomes`` | ``options`` (a list, or its JSON) |

FutureSim has no open date (its simulation opens every question on its start day): a
question opens on ``--open-date`` or ``--horizon-days`` before it resolves, unless the file has
``question_start_date`` or ``open_date``. ``source_split`` and ``prompt`` are ignored (listed in
``import.json``'s ``unmapped_columns``; ``--map`` reads any of them, or a path into a nested
column, for a field).
"""

from __future__ import annotations

from pastcast.questions.peers.common import EXTRAS, Columns

FORMAT = "futuresim"

COLUMNS = Columns(FORMAT, {
    "question_id": ("qid", "question_id", "id"),
    "title": ("title", "question_title", "question"),
    "resolution_date": ("resolution_date", "close_time", "resolve_time"),
    "answer": ("ground_truth_answer", "ground_truth", "answer", "resolution", "resolved_to"),
    "background": ("background",),
    "resolution_criteria": ("resolution_criteria", "criteria", "body", "description"),
    "answer_type": ("answer_type", "type", "question_type"),
    "candidate_outcomes": ("options", "candidate_outcomes"),
    "open_date": ("question_start_date", "open_date"),
    **{c: (c,) for c in EXTRAS if c != "candidate_outcomes"},
}, source_kind="news", url=("url",))

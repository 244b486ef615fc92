"""OpenForesight (nikhilchandak/OpenForesight on Hugging Face; the OpenForecaster question
generator's output): free-form questions generated from news articles.

A split is one Parquet file, ``{split}-00000-of-00001.parquet`` (also read: JSON lines, JSON,
CSV), with the columns of ``OPENFORESIGHT_COLUMNS`` as strings: ``qid``, ``question_title``,
``background``, ``resolution_criteria``, ``answer_type`` (e.g. ``string (location)``,
``string (name)``, ``string (date)``), ``answer``, ``url`` (the source article), the
article's ``article_*`` fields, ``data_source``, ``news_source``, ``resolution_date`` and
``question_start_date`` (``YYYY-MM-DD``, or ``YYYY-MM-DD HH:MM:SS``), ``prompt``,
``prompt_without_retrieval``. The generator's own output names the id ``question_id``.

Mapped: ``qid`` -> ``question_id`` (as written), ``question_title`` -> ``title``,
``question_start_date`` -> ``open_date``, ``url`` -> second of ``source_ids`` (after
``openforesight:<qid>``); pastcast's own columns (``answer_aliases``, ``candidate_outcomes``,
``source_kind``, ``source_ids``, ``category``), when a file carries them (a pastcast export
does), are kept. The source article (``url``, ``article_title``, ``article_maintext``,
``article_publish_date``) goes to ``articles.parquet`` when the file has its text or title
(``pastcast.questions.peers.articles``), and then its ``article_id`` replaces the URL in
``source_ids``. The prompts, ``article_description`` and the other dates are not questions'
text: ignored (listed in ``import.json``).
"""

from __future__ import annotations

from pastcast.questions.peers.common import EXTRAS, Columns

FORMAT = "openforesight"
# The split file's columns, in order (FutureSim's scripts/jsonl_to_openforesight_parquet.py)
OPENFORESIGHT_COLUMNS = (
    "qid", "question_title", "background", "resolution_criteria", "answer_type", "answer", "url",
    "article_maintext", "article_publish_date", "article_modify_date", "article_download_date",
    "article_description", "article_title", "data_source", "news_source", "resolution_date",
    "question_start_date", "prompt", "prompt_without_retrieval")
DEFAULT_SPLIT = "test"


def split_file(split: str = DEFAULT_SPLIT) -> str:
    return f"{split}-00000-of-00001.parquet"


COLUMNS = Columns(FORMAT, {
    "question_id": ("qid", "question_id"),
    "title": ("question_title", "title"),
    "background": ("background",),
    "resolution_criteria": ("resolution_criteria",),
    "answer": ("answer",),
    "answer_type": ("answer_type",),
    "open_date": ("question_start_date", "open_date"),
    "resolution_date": ("resolution_date",),
    "article_url": ("url",),
    "article_title": ("article_title",),
    "article_text": ("article_maintext",),
    "article_date": ("article_publish_date",),
    **{c: (c,) for c in EXTRAS},
}, source_kind="news", url=("url",))

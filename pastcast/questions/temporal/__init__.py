"""Temporal leaks: a question whose text names what was first reported after it opens (a
title, a name, a figure) gives the future away even when the answer is not in it. Each
distinctive phrase of its texts (``phrases``) is looked up in the date-gated corpus
(``corpus``); one first reported after the open date, where the corpus could have shown it
earlier and its absence there is surprising (``rule``), moves the open date to that first report
or drops the question (``step``); ``memo`` keeps the outcomes and first appearances between
builds, so a nightly build judges and searches only what the new articles can change. Figures
are found but not checked by default (``TemporalConfig.kinds``; why: bench/README.md)."""

from pastcast.questions.temporal.memo import TemporalMemo
from pastcast.questions.temporal.rule import TemporalConfig
from pastcast.questions.temporal.step import DROP_REASON, SKIP_REASONS, STAGE, TemporalResult, temporal_leaks

__all__ = ["DROP_REASON", "SKIP_REASONS", "STAGE", "TemporalConfig", "TemporalMemo", "TemporalResult",
           "temporal_leaks"]

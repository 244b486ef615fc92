"""Naive baselines, the floor every forecaster should clear (ForecastBench reports the same
kind beside its models): ``uniform`` spreads its mass evenly over a question's options, and
``base-rate`` forecasts a yes/no question by how often questions of its family came out yes.

Both submit a forecast once and revise it only when it moves, like the other baselines. Scores
(``pastcast.evaluate.scoring``): a uniform forecast over n options that hold the answer scores
1/n, so both score at least 0 on the questions they forecast; a question they cannot forecast
(free-form, with no options) is left alone and scores 0, as abstaining does.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from pastcast.evaluate.scoring import MAX_OUTCOMES
from pastcast.matching import PLACEHOLDERS, normalise
from pastcast.text.families import template_family

if TYPE_CHECKING:
    from pastcast.evaluate.environment import OpenQuestion, ReplayEnvironment

YES, NO = "Yes", "No"
PRIOR_WEIGHT = 2.0  # pseudo-questions of the wider group a family's rate starts from


def is_binary(q: OpenQuestion) -> bool:
    """A yes/no question: typed binary, or its options are yes and no."""
    options = {normalise(o) for o in q.candidate_outcomes if o}
    return (q.answer_type or "").lower() == "binary" or (bool(options) and options <= {"yes", "no"})


def real_options(q: OpenQuestion) -> list[str]:
    """The question's options, placeholders ("Other") left out, each once."""
    seen, out = set(), []
    for o in q.candidate_outcomes:
        key = normalise(o or "")
        if key and key not in PLACEHOLDERS and key not in seen:
            seen.add(key)
            out.append(o.strip())
    return out


def uniform_forecast(q: OpenQuestion) -> dict[str, float]:
    """Equal mass on every option (yes and no for a yes/no question without options); empty
    when there are none or more than a forecast may name (a part of them would not be uniform)."""
    options = real_options(q)
    if is_binary(q) and len(options) < 2:
        options = [YES, NO]
    if not 2 <= len(options) <= MAX_OUTCOMES:
        return {}
    return {o: round(1.0 / len(options), 12) for o in options}


class _Submitting:
    """Submit a forecast when it differs from the one standing (the ledger keeps revisions only)."""

    def __init__(self) -> None:
        self._env: ReplayEnvironment | None = None
        self._last: dict[str, dict[str, float]] = {}

    def restore(self, env: ReplayEnvironment, entries) -> None:
        """Resume: what this replay already submitted (from its ledger)."""
        self._env, self._last = env, {e.question_id: dict(e.forecast) for e in entries}

    def _submit(self, env: ReplayEnvironment, question_id: str, forecast: dict[str, float]) -> None:
        if forecast and forecast != self._last.get(question_id):
            env.submit(question_id, forecast)
            self._last[question_id] = forecast

    def _start(self, env: ReplayEnvironment) -> None:
        if env is not self._env:  # a new replay: forget the last one
            self._env, self._last = env, {}


class UniformAgent(_Submitting):
    """Every option equally likely: on yes/no questions 0.5 each, on a market's options or a
    numeric question's buckets 1/n each. Free-form questions without options are left alone."""

    name = "uniform"

    def act(self, env: ReplayEnvironment) -> None:
        self._start(env)
        for q in env.open_questions():
            if q.question_id not in self._last:
                self._submit(env, q.question_id, uniform_forecast(q))


class BaseRateAgent(_Submitting):
    """Yes/no questions by their family's base rate: of the yes/no questions whose answers were
    public before today, the share that came out yes among those of the same template family
    (``pastcast.text.families.template_family``: the title with numbers, dates and names
    masked), shrunk toward the rate of all yes/no questions, itself shrunk toward 0.5, by
    ``prior_weight`` pseudo-questions each (so with no history it says 0.5). Only answers
    already revealed by the replay (``env.resolved()``) are counted. Other questions get the
    uniform forecast."""

    name = "base-rate"

    def __init__(self, prior_weight: float = PRIOR_WEIGHT) -> None:
        super().__init__()
        self.prior_weight = prior_weight
        self._counted: set[str] = set()
        self._family: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # family -> [yes, all]
        self._all = [0, 0]

    def _start(self, env: ReplayEnvironment) -> None:
        if env is not self._env:
            self._counted, self._family, self._all = set(), defaultdict(lambda: [0, 0]), [0, 0]
        super()._start(env)

    def restore(self, env: ReplayEnvironment, entries) -> None:
        super().restore(env, entries)
        self._counted, self._family, self._all = set(), defaultdict(lambda: [0, 0]), [0, 0]

    def _learn(self, env: ReplayEnvironment) -> None:
        """Count the yes/no answers revealed before today, each once."""
        for r in env.resolved():
            if r.question_id in self._counted or r.resolution_date >= env.today:
                continue
            answer = normalise(r.answer)
            if not is_binary(r) or answer not in ("yes", "no"):
                continue
            self._counted.add(r.question_id)
            for counts in (self._family[template_family(r.title)], self._all):
                counts[0] += answer == "yes"
                counts[1] += 1

    def probability_yes(self, q: OpenQuestion) -> float:
        overall = (self._all[0] + self.prior_weight * 0.5) / (self._all[1] + self.prior_weight)
        yes, seen = self._family.get(template_family(q.title), (0, 0))
        return (yes + self.prior_weight * overall) / (seen + self.prior_weight)

    def act(self, env: ReplayEnvironment) -> None:
        self._start(env)
        self._learn(env)
        for q in env.open_questions():
            if is_binary(q):
                p = round(self.probability_yes(q), 6)
                self._submit(env, q.question_id, {YES: p, NO: round(1.0 - p, 6)})
            elif q.question_id not in self._last:
                self._submit(env, q.question_id, uniform_forecast(q))

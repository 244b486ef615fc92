"""The Dagster resources: where the pipeline reads and writes, how questions are generated and
filtered, which agents evaluate a snapshot. Every setting can come from the environment; the
LLM's (``PASTCAST_LLM_MODEL``, ``_API_BASE``, ``_API_KEY``, ``_MAX_COST``, ``_MAX_TOKENS``,
``_CONCURRENCY``) are read by the library's one reader, ``LLMSettings.from_env``, for every
LLM setting a resource leaves unset."""

from __future__ import annotations

import contextlib
from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from pastcast import lease
from pastcast.evaluate.batch import BASELINES
from pastcast.llm import LLMSettings
from pastcast.pipeline import CorpusFiles
from pastcast.questions.difficulty import DifficultyConfig
from pastcast.questions.filter import FilterConfig
from pastcast.questions.llm_generate import LLMGenerateConfig, SelectConfig
from pastcast.questions.markets import MarketQuestionConfig
from pastcast.questions.near_certain import NearCertainConfig
from pastcast.questions.revision import LLMJudge, RevisionConfig
from pastcast.questions.validate import ValidateConfig


class PastcastStorage(dg.ConfigurableResource):
    """Folders of one dataset build: the raw corpus, working tables and snapshots."""

    corpus_dir: str = "corpora/sample"
    work_dir: str = ".pastcast/work/sample"
    snapshots_dir: str = "snapshots"
    snapshot_name: str = "sample"
    ingest_workers: int = 0  # processes for extraction; 0 means one per core
    market_horizon_days: int = 0  # market questions open this long before resolving; 0: at creation
    numeric_buckets: int = 5  # numeric/date markets become questions over this many ranges; 0: dropped
    near_certain_share: float = 0.5  # drop market questions priced >= 0.97 (<= 0.03) on more of their days; 0: keep
    # publish a version although an input was not read whole or a table lost most of its rows
    # (recorded in its manifest); off, such a version stays unpublished
    allow_input_loss: bool = False
    # how long a run's writing step waits for another build to release the working folder
    # (a `pastcast build` or `dagster asset materialize` outside the run queue) before failing
    writer_wait_seconds: int = 3600

    _context: dg.InitResourceContext | None = PrivateAttr(default=None)
    _holding: contextlib.ExitStack | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._context = context

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._holding is not None:  # this step is done writing: it leaves the run's lease
            self._holding.close()
            self._holding = None

    def work(self) -> Path:
        """The working folder; in a run, its writer lease is joined first (one build at a time)."""
        path = Path(self.work_dir)
        path.mkdir(parents=True, exist_ok=True)
        run = self._context.dagster_run if self._context is not None else None
        if run is not None and self._holding is None:
            held = contextlib.ExitStack()
            try:  # held until the step ends (teardown_after_execution)
                held.enter_context(self._lease(path, run))
            except lease.StoreBusy as exc:
                raise dg.Failure(description=f"{exc}. This run ({run.job_name}) stops here without writing: wait "
                                             "for that build to end, or launch builds with the build_news (days) or "
                                             "build_snapshot job, which queue behind each other; "
                                             "PASTCAST_WRITER_WAIT_SECONDS sets how long a step waits",
                                 allow_retries=False) from exc
            self._holding = held
        return path

    def _lease(self, path: Path, run: dg.DagsterRun):
        """This step's membership of its run's lease: claimed on entry (waiting for another writer
        up to ``writer_wait_seconds``, then ``StoreBusy``), renewed while the step runs, left at its end."""
        log, instance = self._context.log, self._context.instance

        def alive(owner: dict) -> bool | None:
            """A run of this instance has ended when its status says so; the lease judges the rest."""
            if owner.get("kind") != "dagster_run" or instance is None:
                return None
            other = instance.get_run_by_id(owner["id"])
            return None if other is None else not other.is_finished

        def waiting(owner: dict, waited: float) -> None:
            log.info(f"waiting for {lease.describe(owner)} to finish writing {path} ({waited:.0f} s so far)")

        return lease.holding(path, lease.run_owner(run.run_id, run.job_name), alive,
                             wait_seconds=self.writer_wait_seconds, on_wait=waiting)

    def corpus(self) -> CorpusFiles:
        return CorpusFiles.discover(self.corpus_dir)

    def market_questions(self) -> MarketQuestionConfig:
        return MarketQuestionConfig(horizon_days=self.market_horizon_days or None,
                                    numeric_buckets=self.numeric_buckets,
                                    near_certain=NearCertainConfig(share=self.near_certain_share or None))


class EvaluationSettings(dg.ConfigurableResource):
    """The bundled evaluation of each published snapshot: which agents, where their runs go."""

    agents: str = ",".join(BASELINES)  # comma-separated bundled names or package.module:Class
    runs_dir: str = "runs"

    def agent_list(self) -> list[str]:
        return [a.strip() for a in self.agents.split(",") if a.strip()]

    def out_root(self, name: str, version: str) -> Path:
        return Path(self.runs_dir) / f"{name}-{version}"


class QuestionGenerator(dg.ConfigurableResource):
    """How news questions are generated: offline (extractive) or by an LLM through litellm.

    The LLM settings left None come from ``LLMSettings.from_env`` (``PASTCAST_LLM_*``)."""

    generator: str = "extractive"  # or "llm"
    model: str | None = None  # litellm model string
    api_base: str | None = None
    api_key: str | None = None
    max_cost_usd: float | None = None  # per run
    max_tokens: int | None = None  # per run; the budget for models with no known price
    concurrency: int | None = None  # requests in flight (the library's default: 8)
    per_day: int = 100  # articles sent to the LLM per day
    select: str = "cues"  # which articles reach generation: cues, llm (a yes/no screen first), all
    horizon_days: int = 28
    cache_dir: str | None = None

    def options(self) -> dict:
        """Keyword arguments of ``pipeline.generate_news`` (the LLM settings when it is used)."""
        if self.generator != "llm":
            return {"horizon_days": self.horizon_days}
        settings = LLMSettings.from_env(model=self.model, api_base=self.api_base, api_key=self.api_key,
                                        max_cost_usd=self.max_cost_usd, max_tokens=self.max_tokens,
                                        concurrency=self.concurrency,
                                        cache_dir=Path(self.cache_dir) if self.cache_dir else None)
        return {"horizon_days": self.horizon_days, "llm_settings": settings,
                "llm_config": LLMGenerateConfig(horizon_days=self.horizon_days,
                                                select=SelectConfig(per_day=self.per_day, mode=self.select))}


class QuestionFilter(dg.ConfigurableResource):
    """The question filter's settings; the LLM parts (judge, difficulty probes) are off by default.

    The LLM settings left None come from ``LLMSettings.from_env`` (``PASTCAST_LLM_*``)."""

    min_window_days: int = 7
    judge: bool = False  # confirm early-report evidence with an LLM (else the lexical rule decides)
    too_easy: bool = False
    label_noise: bool = False
    quality_llm: bool = False  # the quality audit's LLM pass (flags only)
    model: str | None = None  # for the LLM parts
    api_base: str | None = None
    api_key: str | None = None
    max_cost_usd: float | None = None
    max_tokens: int | None = None

    def options(self) -> dict:
        """Keyword arguments of ``pipeline.filter_questions_stage``."""
        config = FilterConfig(validate=ValidateConfig(min_window_days=self.min_window_days),
                              revision=RevisionConfig(min_window_days=self.min_window_days),
                              difficulty=DifficultyConfig(too_easy=self.too_easy, label_noise=self.label_noise),
                              quality_llm=self.quality_llm)
        if not (self.judge or self.too_easy or self.label_noise or self.quality_llm):
            return {"config": config}
        settings = LLMSettings.from_env(model=self.model, api_base=self.api_base, api_key=self.api_key,
                                        max_cost_usd=self.max_cost_usd, max_tokens=self.max_tokens)
        judge = LLMJudge(settings) if self.judge else None
        return {"config": config, "judge": judge, "llm_settings": settings}


def _optional(name: str) -> str | None:
    return dg.EnvVar(name).get_value("") or None


def generator_from_env() -> QuestionGenerator:
    """PASTCAST_QUESTION_GENERATOR=llm turns the LLM on, PASTCAST_LLM_PER_DAY bounds the articles
    sent to it per day, PASTCAST_LLM_SELECT (cues, llm, all) chooses them and PASTCAST_LLM_CACHE moves its cache; the model, its endpoint and its
    budget (PASTCAST_LLM_MODEL, ...) are left to ``LLMSettings.from_env``."""
    return QuestionGenerator(
        generator=dg.EnvVar("PASTCAST_QUESTION_GENERATOR").get_value("extractive"),
        per_day=int(dg.EnvVar("PASTCAST_LLM_PER_DAY").get_value("100")),
        select=dg.EnvVar("PASTCAST_LLM_SELECT").get_value("cues"),
        cache_dir=_optional("PASTCAST_LLM_CACHE"),
    )


def _flag(name: str) -> bool:
    return dg.EnvVar(name).get_value("").strip().lower() in ("1", "true", "yes", "on")


def filter_from_env() -> QuestionFilter:
    """PASTCAST_MIN_WINDOW_DAYS; PASTCAST_LEAK_JUDGE, PASTCAST_TOO_EASY, PASTCAST_LABEL_NOISE,
    PASTCAST_QUALITY_LLM (1 to turn on; the model and its budget from ``LLMSettings.from_env``,
    PASTCAST_LLM_MODEL, ...)."""
    return QuestionFilter(
        min_window_days=int(dg.EnvVar("PASTCAST_MIN_WINDOW_DAYS").get_value("7")),
        judge=_flag("PASTCAST_LEAK_JUDGE"), too_easy=_flag("PASTCAST_TOO_EASY"),
        label_noise=_flag("PASTCAST_LABEL_NOISE"), quality_llm=_flag("PASTCAST_QUALITY_LLM"),
    )


def storage_from_env() -> PastcastStorage:
    """Defaults run the bundled sample; PASTCAST_* variables point at a real corpus
    (PASTCAST_ALLOW_INPUT_LOSS=1: publish a version although an input was lost, see
    ``pastcast build --allow-input-loss``)."""
    return PastcastStorage(
        corpus_dir=dg.EnvVar("PASTCAST_CORPUS_DIR").get_value("corpora/sample"),
        work_dir=dg.EnvVar("PASTCAST_WORK_DIR").get_value(".pastcast/work/sample"),
        snapshots_dir=dg.EnvVar("PASTCAST_SNAPSHOTS_DIR").get_value("snapshots"),
        snapshot_name=dg.EnvVar("PASTCAST_SNAPSHOT_NAME").get_value("sample"),
        ingest_workers=int(dg.EnvVar("PASTCAST_INGEST_WORKERS").get_value("0")),
        market_horizon_days=int(dg.EnvVar("PASTCAST_MARKET_HORIZON_DAYS").get_value("0")),
        numeric_buckets=int(dg.EnvVar("PASTCAST_NUMERIC_BUCKETS").get_value("5")),
        near_certain_share=float(dg.EnvVar("PASTCAST_NEAR_CERTAIN_SHARE").get_value("0.5")),
        allow_input_loss=_flag("PASTCAST_ALLOW_INPUT_LOSS"),
        writer_wait_seconds=int(dg.EnvVar("PASTCAST_WRITER_WAIT_SECONDS").get_value("3600")),
    )


def evaluation_from_env() -> EvaluationSettings:
    """PASTCAST_EVAL_AGENTS (default the offline baselines), PASTCAST_RUNS_DIR (default runs)."""
    return EvaluationSettings(agents=dg.EnvVar("PASTCAST_EVAL_AGENTS").get_value(",".join(BASELINES)),
                              runs_dir=dg.EnvVar("PASTCAST_RUNS_DIR").get_value("runs"))

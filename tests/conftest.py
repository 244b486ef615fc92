"""pytest setup shared by every test."""

import os

# litellm must never try the network for its price map (see README, "Known pitfalls").
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def demo_snapshot(tmp_path_factory):
    """The bundled sample corpus built into a snapshot once per test session (what `make demo`
    replays), for tests that drive a replay the way a user's agent would."""
    from pastcast import pipeline
    from warcs import SAMPLE

    root = tmp_path_factory.mktemp("demo-snapshot")
    return pipeline.run_all(SAMPLE, root / "work", root / "snapshots", "sample")

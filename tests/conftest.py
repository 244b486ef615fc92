"""pytest setup shared by every test."""

import os

# litellm must never try the network for its price map (see README, "Known pitfalls").
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

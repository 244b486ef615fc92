"""``pastcast demo`` outside a checkout (a wheel install, another folder): the code location
cannot be imported, and the command says where the demo runs in one line, no traceback."""

import os
import subprocess
import sys


def test_demo_outside_a_checkout_is_one_clear_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the checkout on no path
    proc = subprocess.run([sys.executable, "-c", "from pastcast.cli import main; main()", "demo"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "checkout of the repository" in lines[0] and "make demo" in lines[0], proc.stderr
    assert not any(tmp_path.iterdir())  # nothing written: no Dagster instance, no snapshot

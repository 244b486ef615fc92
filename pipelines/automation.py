"""Whether the automations (the three sensors and the nightly schedule) start on.

One switch, read when the code location loads: ``PASTCAST_AUTOMATIONS=on`` (``make dev
AUTOMATIONS=on``) starts them running; unset or ``off`` leaves them stopped until turned on in
the UI or with ``dagster sensor start`` / ``dagster schedule start``. A status set in the UI or
the CLI wins over this default either way (docs/operations.md).
"""

from __future__ import annotations

import os

import dagster as dg

SWITCH = "PASTCAST_AUTOMATIONS"
_ON, _OFF = ("on", "1", "true", "yes"), ("off", "0", "false", "no", "")


def automations_on() -> bool:
    value = os.environ.get(SWITCH, "").strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    # a typo must not silently leave a nightly deployment idle, nor start one by surprise
    raise ValueError(f"{SWITCH}={value!r}: use on or off")


def sensor_status() -> dg.DefaultSensorStatus:
    return dg.DefaultSensorStatus.RUNNING if automations_on() else dg.DefaultSensorStatus.STOPPED


def schedule_status() -> dg.DefaultScheduleStatus:
    return dg.DefaultScheduleStatus.RUNNING if automations_on() else dg.DefaultScheduleStatus.STOPPED

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout

DEFAULT_MQTT = "mqtt://127.0.0.1:1883"
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
HAND_EVENTS = 280  # about; to size the games played beforehand
PREROLL_RATE = 800.0  # events/s in all while the tables reach their random phases
MAX_BEHIND = 0.5  # seconds a table may lag its pace before it skips ahead (load too slow)
P99_AIM_MS = 50.0
CLUB_RATE = 500  # events/s of a 50-table club: the rate the summary reads the latency at
SLOPE_SHARE = 0.02  # a backlog growing by more than this share of the offered rate: behind
# the state keys the service adds to the mirror's snapshot (TableRunner.state)
STATE_NOISE = ("session_id", "next_session_id", "online", "link", "seating_key")
RETAINED = ("bridge/availability", "bridge/link", "bridge/counters", "service/state")
OTHER_NOTE = 30  # % of a core taken by other programs that makes a step's figures suspect
HOLE_WAIT = 30.0  # seconds the probe waits for a replay to fill a hole in a table's events
WAITING_FOR = 10.0  # seconds a state message may wait for its event on the probe's MQTT

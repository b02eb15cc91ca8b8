"""The embedded amqtt broker, run as its own process: `python -m table_sim.amqtt_broker PORT`.

amqtt 0.12.1 (the latest release) has one delivery bug this project meets: when a
client connects, it sends that client every retained message matching *any* filter
that *any* session has subscribed to, before the client has subscribed to anything
(`Broker.client_connected` walks the broker-wide `_subscriptions`). A bridge then got
a retained command once on connect and once more on its own SUBSCRIBE; a client that
subscribed to nothing got messages too. `RetainedForOwnFilters` sends the retained
messages of a filter only to a session that holds that filter, which is what MQTT
3.1.1 §3.3.1.3 asks (a persistent session's own filters still get theirs on connect).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from amqtt.broker import Broker
from amqtt.session import Session

CONFIG: dict[str, Any] = {
    "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
}


class RetainedForOwnFilters(Broker):
    """amqtt's broker, sending a filter's retained messages only to its subscribers."""

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Session
    ) -> None:
        holders = self._subscriptions.get(subscription[0], [])
        if any(held is session for held, _qos in holders):
            await super()._publish_retained_messages_for_subscription(subscription, session)


async def serve(port: int) -> None:
    """Listen on 127.0.0.1:`port` until killed."""
    listeners = {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}}
    broker = RetainedForOwnFilters(CONFIG | {"listeners": listeners})
    await broker.start()
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1])))

"""The live side of the table service: the bridges' event streams, in order, exactly once."""

from table_service.live.consumer import Consumer, Gap, Hole, Step, StreamOrder

__all__ = ["Consumer", "Gap", "Hole", "Step", "StreamOrder"]

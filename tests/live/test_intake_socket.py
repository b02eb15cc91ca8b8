"""The event stream's buffered MQTT socket (intake_socket.py): over a real socket pair its
reads come in order from one buffer and its writes go out gathered, all of them, even
when the kernel takes them in parts; over a real broker the buffered client receives a
burst of QoS 1 messages in order and acknowledges every one (none comes again on the
persistent session), and what it publishes arrives."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import aiomqtt
import pytest

from table_service.live.intake_socket import BufferedClient, BufferedSocket


@pytest.fixture
def pair() -> Iterator[tuple[BufferedSocket, socket.socket]]:
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    buffered = BufferedSocket(ours)
    try:
        yield buffered, peer
    finally:
        buffered.close()
        peer.close()


def test_small_reads_come_in_order_from_one_buffer(
    pair: tuple[BufferedSocket, socket.socket],
) -> None:
    buffered, peer = pair
    peer.sendall(b"\x30\x05hello\x30\x03abc")
    assert buffered.recv(1) == b"\x30"
    assert buffered.pending() == 11  # the rest waits in the buffer
    assert buffered.recv(1) == b"\x05"
    assert buffered.recv(5) == b"hello"
    assert buffered.recv(2) == b"\x30\x03"
    assert buffered.recv(100) == b"abc"  # no more than there is
    assert buffered.pending() == 0
    with pytest.raises(BlockingIOError):
        buffered.recv(1)  # as the socket: nothing there
    peer.shutdown(socket.SHUT_WR)
    assert buffered.recv(1) == b""  # the end of the stream


def test_writes_are_gathered_until_flushed(pair: tuple[BufferedSocket, socket.socket]) -> None:
    buffered, peer = pair
    peer.setblocking(False)
    assert [buffered.send(p) for p in (b"\x40\x02\x00\x01", b"\x40\x02\x00\x02")] == [4, 4]
    assert buffered.unsent == 8
    with pytest.raises(BlockingIOError):
        peer.recv(100)  # nothing written yet
    assert buffered.flush() is True
    assert buffered.unsent == 0
    assert peer.recv(100) == b"\x40\x02\x00\x01\x40\x02\x00\x02"


def test_what_the_kernel_does_not_take_waits_and_goes_out_whole(
    pair: tuple[BufferedSocket, socket.socket],
) -> None:
    buffered, peer = pair
    data = bytes(range(256)) * 16_384  # 4 MiB: more than the socket pair's buffers
    for at in range(0, len(data), 1000):
        assert buffered.send(data[at : at + 1000]) == len(data[at : at + 1000])
    assert buffered.flush() is False  # the kernel is full: the rest waits
    assert buffered.unsent > 0
    received = bytearray()
    while len(received) < len(data):
        received += peer.recv(1 << 20)
        buffered.flush()
    assert buffered.unsent == 0
    assert bytes(received) == data


def test_closing_writes_what_is_gathered(pair: tuple[BufferedSocket, socket.socket]) -> None:
    buffered, peer = pair
    buffered.send(b"\xe0\x00")  # a DISCONNECT
    buffered.close()
    assert peer.recv(10) == b"\xe0\x00"
    assert peer.recv(10) == b""


def host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 1883


async def test_a_burst_of_qos1_messages_is_received_in_order_and_each_acknowledged(
    mqtt_url: str,
) -> None:
    host, port = host_port(mqtt_url)
    topic, ident = f"burst/{uuid.uuid4().hex[:8]}", f"buffered-{uuid.uuid4().hex[:8]}"
    sent = [f"{i:05d}".encode() * 20 for i in range(2000)]

    async def receive(count: int, wait: float) -> list[bytes]:
        got: list[bytes] = []
        async with BufferedClient(host, port, identifier=ident, clean_session=False) as client:
            await client.subscribe(topic, qos=1)
            ready.set()
            with contextlib.suppress(TimeoutError):  # (the count checked by the caller)
                async with asyncio.timeout(wait):
                    async for message in client.messages:
                        got.append(bytes(message.payload))  # type: ignore[arg-type]
                        if len(got) == count:
                            break
        return got

    ready = asyncio.Event()
    receiving = asyncio.create_task(receive(len(sent), 30))
    await ready.wait()
    async with aiomqtt.Client(host, port, max_inflight_messages=100) as publisher:
        for payload in sent:
            await publisher.publish(topic, payload, qos=1)
    assert await receiving == sent
    ready.clear()
    assert await receive(0, 1.0) == []  # every one acknowledged: none comes again


async def test_what_the_buffered_client_publishes_arrives(mqtt_url: str) -> None:
    host, port = host_port(mqtt_url)
    topic = f"out/{uuid.uuid4().hex[:8]}"
    async with aiomqtt.Client(host, port) as listener:
        await listener.subscribe(topic, qos=1)
        async with BufferedClient(host, port) as client:
            for i in range(50):
                await client.publish(topic, f"m{i}", qos=1)
        got = []
        async with asyncio.timeout(10):
            async for message in listener.messages:
                got.append(bytes(message.payload))  # type: ignore[arg-type]
                if len(got) == 50:
                    break
    assert got == [f"m{i}".encode() for i in range(50)]


async def test_a_burst_larger_than_the_socket_takes_goes_out_whole_and_in_order(
    mqtt_url: str,
) -> None:
    """Writes go at the end of the loop's turn without watching the socket; one the socket
    cannot take at once waits for room (the socket watched then) and goes on in order."""
    host, port = host_port(mqtt_url)
    topic = f"out/{uuid.uuid4().hex[:8]}"
    sent = [bytes([65 + i % 26]) * 50_000 for i in range(40)]  # 2 MB, past the small buffer
    got: list[bytes] = []
    async with aiomqtt.Client(host, port) as listener:
        await listener.subscribe(topic, qos=0)
        async with BufferedClient(host, port) as client:
            sock = client._client.socket()
            assert sock is not None
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # full at once
            await asyncio.gather(*(client.publish(topic, p, qos=0) for p in sent))
            async with asyncio.timeout(30):
                async for message in listener.messages:
                    got.append(bytes(message.payload))  # type: ignore[arg-type]
                    if len(got) == len(sent):
                        break
    assert got == sent

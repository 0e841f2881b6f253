"""The owner's batches for other nodes' clients (issue 29): each node is sent the frames of
its own clients' audiences only, the relay passes them on exactly as the owner wrote them,
and a client that would skip versions is caught up from the owner instead; what a node
publishes for one other node at once goes as one message. No Redis here: the owner's sender
and the relay's cluster are stand-ins that keep what they are given."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from tienlen.apps.server.bus import SEP, bundle
from tienlen.apps.server.hub import Hub
from tienlen.apps.server.limits import Rate, TokenBucket
from tienlen.apps.server.owner import Owner
from tienlen.apps.server.relay import Batch, Relays, audience, pack, unpack

#: Frames as a server writes them: JSON with quotes, escapes and text in Vietnamese.
ODD = [
    '{"type":"event","version":7,"event":{"kind":"chat","text":"a \\"quoted\\"\\nline"}}',
    '{"type":"event","version":8,"event":{"kind":"chat","text":"Tiến Lên \\\\ \\u0000"}}',
]


class Sock:
    """A client's socket at the relaying node: the frames it was sent."""

    def __init__(self, player: str) -> None:
        self.player = player
        self.name = player
        self.chat = TokenBucket(Rate(1, 1.0))
        self.sent: list[str] = []

    def send(self, message: Any) -> None:
        raise AssertionError("a relay sends frames as the owner wrote them")

    def send_text(self, text: str) -> None:
        self.sent.append(text)


class Owners:
    """The relaying node's cluster: requests to owners answered by ``answer``."""

    def __init__(self, answer: Callable[[Mapping[str, Any]], dict[str, Any]]) -> None:
        self.node = "relay"
        self.owners: dict[str, str] = {}
        self.requests: list[Mapping[str, Any]] = []
        self.answer = answer
        self.forwarding = self
        self.bus = SimpleNamespace(
            watch=lambda t: None,
            unwatch=lambda t: None,
            send=lambda channel, message: None,
            table_channel=lambda t: f"t:{t}",
        )

    def owns(self, table_id: str) -> bool:
        return False

    async def route(
        self,
        table_id: str,
        here: Callable[[], Awaitable[None]],
        request: Mapping[str, Any],
        answered: Callable[[Mapping[str, Any]], None] | None = None,
    ) -> None:
        self.requests.append(request)
        if answered is not None:
            answered(self.answer(request))


def relaying(seen: dict[Sock, int]) -> tuple[Relays, Owners]:
    """A relay with ``seen``'s clients at table ``T`` (each brought to its version), whose
    owner answers a catch-up with one frame per version missed up to 9."""

    def answer(request: Mapping[str, Any]) -> dict[str, Any]:
        since = request["since"]
        return {"version": 9, "frames": [f"caught up {v}" for v in range(since + 1, 10)]}

    cluster = Owners(answer)
    relays = Relays(Hub(), cluster)  # type: ignore[arg-type]  # (a stand-in cluster)
    relays.seen["T"] = {conn: at for conn, at in seen.items()}
    return relays, cluster


def batch(first: int, last: int, seats: dict[str, str], audiences: list[str]) -> Batch:
    frames = {a: [f"{a}@{v}" for v in range(first, last + 1)] for a in audiences}
    return unpack(pack("T", "owner", first, last, seats, frames))


def test_a_batch_carries_each_audiences_frames_verbatim() -> None:
    spectators = ['{"type":"event","version":7}', '{"type":"event","version":8}']
    text = pack("T", "n1", 7, 8, {"ann": "0", "bob": "-"}, {"0": ODD, "-": spectators})
    b = unpack(text)
    assert (b.table, b.node, b.first, b.last) == ("T", "n1", 7, 8)
    assert b.frames("ann") == ODD
    assert b.frames("bob") == spectators
    assert b.frames("carl") is None  # nobody told the owner of carl yet
    for frame in ODD:
        json.loads(frame)  # (the frames are JSON, as a client reads them)


def test_a_batch_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="not a batch"):
        unpack('{"op": "reply"}')
    good = pack("T", "n1", 7, 8, {"ann": "0"}, {"0": ["a", "b"]})
    with pytest.raises(ValueError, match="has 3 frames"):
        unpack(good + "\nc")  # a frame too many: the lines no longer match the versions


def test_each_client_gets_its_audiences_frames_past_its_version() -> None:
    ann, bob, eve = Sock("ann"), Sock("bob"), Sock("eve")
    relays, _ = relaying({ann: 6, bob: 7, eve: 6})
    pulled: list[tuple[str, Sock, int]] = []
    b = batch(7, 8, {"ann": "0", "bob": "1", "eve": "-"}, ["0", "1", "-"])
    relays.frames(b, lambda t, c, at: pulled.append((t, c, at)))  # type: ignore[arg-type]
    assert ann.sent == ["0@7", "0@8"]
    assert bob.sent == ["1@8"]  # it had 7 already
    assert eve.sent == ["-@7", "-@8"]
    assert pulled == []
    assert relays.seen["T"] == {ann: 8, bob: 8, eve: 8}


def test_a_client_never_gets_another_audiences_frames() -> None:
    ann, bob = Sock("ann"), Sock("bob")
    relays, _ = relaying({ann: 6, bob: 6})
    pulled: list[Sock] = []
    # bob is not in this batch's seats (the owner had not heard of him): nothing for him,
    # though seat 0's frames are there; he asks the owner for his own.
    relays.frames(batch(7, 7, {"ann": "0"}, ["0"]), lambda t, c, at: pulled.append(c))  # type: ignore[arg-type]
    assert ann.sent == ["0@7"]
    assert bob.sent == []
    assert pulled == [bob]


def test_a_gap_is_caught_up_from_the_owner() -> None:
    ann = Sock("ann")
    relays, cluster = relaying({ann: 3})
    pulled: list[tuple[str, Sock, int]] = []
    # Versions 4 to 6 never came (a message lost while Redis was down): 7-8 are not sent,
    # the client asks the owner for what it missed since 3.
    relays.frames(batch(7, 8, {"ann": "0"}, ["0"]), lambda t, c, at: pulled.append((t, c, at)))  # type: ignore[arg-type]
    assert ann.sent == []
    assert pulled == [("T", ann, 3)]

    async def here() -> None:
        raise AssertionError("the owner is another node")

    asyncio.run(relays.pull("T", ann, 3, here))
    assert cluster.requests == [{"act": "sync", "player": "ann", "since": 3}]
    assert ann.sent == [f"caught up {v}" for v in range(4, 10)]
    assert relays.seen["T"][ann] == 9
    # A batch the catch-up already covered is not sent again.
    relays.frames(batch(8, 9, {"ann": "0"}, ["0"]), lambda t, c, at: pulled.append((t, c, at)))  # type: ignore[arg-type]
    assert ann.sent[-1] == "caught up 9"
    assert len(pulled) == 1


class Sender:
    """The owner's outbox: what it would publish, by channel."""

    node = "owner"

    def __init__(self) -> None:
        self.out: list[tuple[str, Mapping[str, Any] | str]] = []

    def channel(self, node: str) -> str:
        return f"node:{node}"

    def lobby_channel(self, table_id: str | None) -> str:
        return f"line:{table_id}"

    def send(self, channel: str, message: Mapping[str, Any] | str) -> None:
        self.out.append((channel, message))


def test_the_owner_sends_each_node_its_clients_audiences_only() -> None:
    seats = {"ann": 0, "bob": 1, "carl": 2}
    table = SimpleNamespace(
        id="T",
        remote_viewers={"n1": frozenset({"ann"}), "n2": frozenset({"bob", "eve"})},
        seat_of=seats.get,
        config=SimpleNamespace(private=True),
    )
    made: list[set[int | None]] = []

    def frames(t: Any, pending: list[Any], wanted: set[int | None]) -> dict[int | None, list[str]]:
        made.append(wanted)
        return {s: [f"{audience(s)}@{p.version}" for p in pending] for s in wanted}

    host = SimpleNamespace(frames=frames)
    sender = Sender()
    owner = Owner(host, sender)
    pending = [SimpleNamespace(version=v, kind="play") for v in (7, 8)]
    owner.publish(table, pending)  # type: ignore[arg-type]
    assert made == [{0, 1, None}]  # each audience's frames made once for all nodes
    sent = {channel: unpack(str(text)) for channel, text in sender.out}
    assert set(sent) == {"node:n1", "node:n2"}  # none to a node without clients there
    n1, n2 = sent["node:n1"], sent["node:n2"]
    assert n1.seats == {"ann": "0"}
    assert n1.frames("ann") == ["0@7", "0@8"]
    assert "1@7" not in str(sender.out[0][1]) and "-@7" not in str(sender.out[0][1])
    assert n2.seats == {"bob": "1", "eve": "-"}
    assert (n2.frames("bob"), n2.frames("eve")) == (["1@7", "1@8"], ["-@7", "-@8"])
    assert n2.frames("ann") is None
    assert "0@7" not in next(str(t) for c, t in sender.out if c == "node:n2")


def test_messages_to_one_node_go_as_one_in_the_order_it_hears_them() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        asked: asyncio.Future[int] = loop.create_future()
        batch: list[tuple[str, str, asyncio.Future[int] | None]] = [
            ("p:node:a", "frames for a", None),
            ("p:node:b", "frames for b", None),
            ("p:node:a", "answer to a", asked),
            ("p:t:T", "who", None),  # heard by several nodes: nothing passes it
            ("p:node:a", "after who", None),
        ]
        out = bundle(batch, "p:node:")
        assert [(c, t.split(SEP)) for c, t, _ in out] == [
            ("p:node:a", ["frames for a", "answer to a"]),
            ("p:node:b", ["frames for b"]),
            ("p:t:T", ["who"]),
            ("p:node:a", ["after who"]),
        ]
        assert [w for _, _, w in out] == [[asked], [], [], []]
        assert SEP not in json.dumps({"text": f"a{SEP}b"})  # (JSON escapes it in a string)

    asyncio.run(run())

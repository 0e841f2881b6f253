"""Planning: what a client's message (or a player's coming and going) does to a table, as
the events it causes. Pure functions over a :class:`~.tables.Table`: each event is checked
and applied to the table as it is planned (the engine decides every rule), and nothing is
stored or sent here (:mod:`.commits` does that, or puts the table back if it cannot).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from .client_messages import (
    AcceptMsg,
    AskMsg,
    ClientMessage,
    GiveMsg,
    OfferMsg,
    PassMsg,
    PlayMsg,
    RefuseMsg,
)
from .hub import Actor
from .tables import Pending, Refused, Table, merged

__all__ = ["action", "applied", "plan", "presence"]


def applied(table: Table, p: Pending) -> Pending:
    """``p`` applied to ``table`` (its version set); the actor's private share included."""
    p.version = table.apply(p.kind, merged(p.public, p.private))
    return p


def action(
    table: Table, seat: int, kind: str, fields: Mapping[str, Any], actor: str | None
) -> list[Pending]:
    """A game action by ``seat`` (a player's, or a bot's or the timer's: ``actor`` None) and
    what follows it (the game's end, the next deal); :class:`Refused` if illegal."""
    p = table.plan_action(seat, kind, fields)
    p.actor = actor
    applied(table, p)
    return [p, *table.followups()]


def presence(table: Table, player: str, op: str, *, grace: float = 0.0) -> list[Pending]:
    """A returning player's ``back`` (their bot played) or ``online`` (within the grace
    period), a lost one's ``offline`` (with when the ``grace`` seconds end), or an absent
    one's ``away`` (none if it no longer applies: the player is here again, at this node
    or another, or left the seat)."""
    seat = table.seat_of(player)
    if seat is None:
        return []
    s = table.seats[seat]
    if op == "back":
        if s.away:
            return [applied(table, Pending("back", {"seat": seat}, actor=player))]
        if s.grace_until is not None:
            return [applied(table, Pending("online", {"seat": seat}, actor=player))]
        return []
    if player in table.watching() or s.away or table.status != "playing":
        return []
    if op == "offline":
        if s.grace_until is not None:
            return []
        until = round(time.time() + grace, 3)
        return [applied(table, Pending("offline", {"seat": seat, "until": until}))]
    return [applied(table, Pending("away", {"seat": seat}))]


def plan(actor: Actor, table: Table, msg: ClientMessage, *, chat_max: int) -> list[Pending]:
    """The events a message makes (applied to the table already), or :class:`Refused`."""
    seat = table.seat_of(actor.player)
    if msg.type == "chat":
        text = msg.text.strip()
        if len(text) > chat_max:
            raise Refused("too_long", f"chat lines are limited to {chat_max} characters")
        if msg.id is not None and table.said(actor.player, msg.id):
            return []  # sent again (it was said, the answer was lost): said once
        if not actor.chat.take():
            raise Refused("rate_limited", "too many chat lines: slow down")
        said = {"player": actor.player, "name": actor.name, "seat": seat, "text": text}
        if msg.id is not None:
            said["id"] = msg.id
        return [applied(table, Pending("chat", said, actor=actor.player))]
    if msg.type == "sit":
        if table.status != "waiting":
            raise Refused("not_waiting", "seats are taken before the match starts")
        if not 0 <= msg.seat < len(table.seats):
            raise Refused("bad_seat", f"seats are 0-{len(table.seats) - 1}")
        if table.seats[msg.seat].player is not None:
            raise Refused("seat_taken", f"seat {msg.seat} is taken")
        if seat is not None:
            raise Refused("seated", f"you already sit in seat {seat}")
        sat = {"seat": msg.seat, "player": actor.player, "name": actor.name}
        return [applied(table, Pending("sit", sat, actor=actor.player))]
    if msg.type == "stand":
        if seat is None or table.status != "waiting":
            raise Refused("not_seated", "you can leave a seat you hold before the start")
        return [applied(table, Pending("stand", {"seat": seat}, actor=actor.player))]
    if msg.type in ("start", "rematch"):
        want = "waiting" if msg.type == "start" else "finished"
        if actor.player != table.host:
            raise Refused("forbidden", f"only the host may {msg.type}")
        if table.status != want:
            raise Refused("bad_status", f"the table is {table.status}")
        first = applied(table, Pending(msg.type, {}, actor=actor.player))
        return [first, table.deal_event(), *table.followups()]
    assert isinstance(msg, PlayMsg | PassMsg | GiveMsg | OfferMsg | AcceptMsg | RefuseMsg | AskMsg)
    if seat is None:
        raise Refused("not_seated", "spectators cannot play")
    version = msg.version
    # An ask depends on nothing the client saw: its answer is the count when it arrives.
    if msg.type != "ask" and (version < table.state_version or version > table.version):
        raise Refused(
            "stale",
            f"you saw version {version}, the game is at version {table.state_version}: sync first",
        )
    fields = msg.model_dump(exclude={"type", "version"})
    if "give" in fields and msg.type == "offer":
        fields["cards"] = fields.pop("give")
    return action(table, seat, msg.type, fields, actor.player)

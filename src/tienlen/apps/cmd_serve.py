"""``tienlen serve``: run the online game server (docs/server.md)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["register", "run", "settings_of"]

#: Seconds past its ``stop_timeout`` that the supervisor waits for a worker before killing it.
STOP_SLACK = 5.0
#: Seconds of a node's stop deadline kept for exiting once :meth:`Server.stop` gave up.
STOP_MARGIN = 0.5


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand."""
    from tienlen.apps.server.config import Settings, default_data_dir

    p = subparsers.add_parser(
        "serve",
        help="run the online game server (lobby, tables, bots, history)",
        description="Serve Tiến Lên over HTTP and WebSockets (docs/server.md, "
        "docs/web-protocol.md).",
    )
    p.add_argument(
        "--data",
        type=Path,
        default=default_data_dir(),
        help="data folder for the SQLite database (default: %(default)s)",
    )
    p.add_argument(
        "--database-url",
        help="e.g. postgresql+asyncpg://user@host/db (default: SQLite in the data folder)",
    )
    p.add_argument(
        "--db-timeout",
        type=float,
        default=Settings.db_timeout,
        help="seconds a PostgreSQL statement may take before the action is refused with "
        "try_again (%(default)s)",
    )
    p.add_argument(
        "--db-connect-timeout",
        type=float,
        default=Settings.db_connect_timeout,
        help="seconds connecting to PostgreSQL, or waiting for a pooled connection, may take "
        "(%(default)s)",
    )
    p.add_argument(
        "--redis-url",
        help="e.g. redis://host:6379/0: run as a node of a cluster (needs a PostgreSQL "
        "--database-url; docs/server.md, 'Running a cluster')",
    )
    p.add_argument(
        "--redis-prefix",
        default=Settings.redis_prefix,
        help="prefix of the site's Redis keys and channels (%(default)s)",
    )
    p.add_argument(
        "--advertise-url",
        type=_advertise_url,
        metavar="URL",
        help="this node's base URL as browsers reach it directly (e.g. "
        "https://n2.example.org or https://example.org/node/n2): a table socket opened at "
        "another node is sent here when this node owns the table, instead of being relayed "
        "(docs/deploy.md, 'Direct routing')",
    )
    p.add_argument(
        "--lease-ttl",
        type=float,
        default=Settings.lease_ttl,
        help="seconds a table's ownership lease lasts: a dead node's tables are taken over "
        "after about this long (%(default)s)",
    )
    p.add_argument(
        "--lease-renew",
        type=float,
        default=Settings.lease_renew,
        help="seconds between lease renewals, well under --lease-ttl (%(default)s)",
    )
    p.add_argument(
        "--forward-timeout",
        type=float,
        default=Settings.forward_timeout,
        help="seconds a node waits for a table's owner to answer before it reads the lease "
        "again and asks the node holding it then (%(default)s)",
    )
    p.add_argument(
        "--stop-timeout",
        type=float,
        default=Settings.stop_timeout,
        help="seconds a node has to stop after SIGTERM (closing its sockets, handing its "
        "leases back); past it, it exits at once (%(default)s)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="node processes sharing the port (more than one needs --redis-url) (%(default)s)",
    )
    p.add_argument("--host", default=Settings.host, help="address to listen on (%(default)s)")
    p.add_argument(
        "--port", type=int, default=Settings.port, help="port to listen on (%(default)s)"
    )
    p.add_argument(
        "--log-level",
        default=Settings.log_level,
        choices=["critical", "error", "warning", "info", "debug"],
    )
    p.add_argument(
        "--grace",
        type=float,
        default=Settings.grace,
        help="seconds a disconnected player keeps the seat before a bot takes over",
    )
    p.add_argument(
        "--token-days",
        type=float,
        default=30.0,
        help="days a guest token stays valid (an active browser's is renewed) (%(default)s)",
    )
    p.add_argument(
        "--bot-workers", type=int, default=Settings.bot_workers, help="bot worker processes"
    )
    p.add_argument(
        "--bot-pool",
        choices=["process", "thread"],
        default=Settings.bot_pool,
        help=argparse.SUPPRESS,
    )
    p.add_argument(
        "--origin",
        action="append",
        default=[],
        help="another Origin allowed to open sockets (repeatable)",
    )
    _limit_options(p, Settings())
    p.add_argument(
        "--secure-cookie",
        action="store_true",
        help="mark the guest cookie Secure (HTTPS only): behind a TLS proxy (docs/deploy.md)",
    )
    p.add_argument(
        "--cookie-domain",
        type=_cookie_domain,
        metavar="DOMAIN",
        help="set the guest cookie for DOMAIN and its subdomains (e.g. example.org), so that "
        "nodes with host names of their own (n1.example.org, n2.example.org) share it and "
        "their pages may open sockets at one another (default: the host's own cookie; "
        "docs/deploy.md, 'A host name per node')",
    )
    p.set_defaults(func=run)


def settings_of(args: argparse.Namespace) -> Any:
    """The server's :class:`~tienlen.apps.server.config.Settings` from the options."""
    from tienlen.apps.server.config import Settings

    return Settings(
        data=args.data,
        database_url=args.database_url,
        db_timeout=args.db_timeout,
        db_connect_timeout=args.db_connect_timeout,
        redis_url=args.redis_url,
        redis_prefix=args.redis_prefix,
        advertise_url=args.advertise_url,
        lease_ttl=args.lease_ttl,
        lease_renew=args.lease_renew,
        forward_timeout=args.forward_timeout,
        stop_timeout=args.stop_timeout,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        grace=args.grace,
        bot_pool=args.bot_pool,
        bot_workers=args.bot_workers,
        token_lifetime=args.token_days * 24 * 3600,
        origins=tuple(args.origin),
        secure_cookie=args.secure_cookie,
        cookie_domain=args.cookie_domain,
        messages=args.messages,
        overflow=args.overflow,
        sockets_per_player=args.sockets_per_player,
        guests_per_address=args.guests_per_address,
        connections_per_address=args.connections_per_address,
        trusted_proxies=tuple(args.trusted_proxy),
        abandon_after=args.abandon_after,
        evict_after=args.evict_after,
        lobby_new_every=args.lobby_new_every,
    )


def _env(name: str, default: Any) -> Any:
    """An option's default: the environment variable ``TIENLEN_<NAME>`` if set."""
    return os.environ.get(f"TIENLEN_{name.upper().replace('-', '_')}", default)


def _rate(text: str) -> Any:
    from tienlen.apps.server.limits import Rate

    try:
        return Rate.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _advertise_url(text: str) -> str:
    from tienlen.apps.server.direct import advertised

    try:
        return advertised(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _cookie_domain(text: str) -> str:
    from tienlen.apps.server.deps import cookie_domain

    try:
        return cookie_domain(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _proxy(text: str) -> str:
    import ipaddress

    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a trusted proxy is an address or a network (10.0.0.0/8), not {text[:60]!r}"
        ) from None
    return text


def _limit_options(p: argparse.ArgumentParser, defaults: Any) -> None:
    """The abuse limits (docs/server.md, "Limits"); each also read from ``TIENLEN_<OPTION>``
    (e.g. ``TIENLEN_GUESTS_PER_ADDRESS=60/3600``)."""
    for name, help_text in [
        ("messages", "frames one socket may send: COUNT/SECONDS (%(default)s)"),
        ("overflow", "frames past that budget before the socket is closed (%(default)s)"),
        ("guests-per-address", "guests one client address may create (%(default)s)"),
        ("connections-per-address", "sockets one client address may try to open (%(default)s)"),
    ]:
        field = name.replace("-", "_")
        p.add_argument(
            f"--{name}",
            type=_rate,
            default=str(_env(name, getattr(defaults, field))),
            metavar="COUNT/SECONDS",
            help=help_text,
        )
    p.add_argument(
        "--sockets-per-player",
        type=int,
        default=str(_env("sockets-per-player", defaults.sockets_per_player)),
        help="sockets one player may hold open at once (%(default)s)",
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        type=_proxy,
        default=[each for each in _env("trusted-proxy", "").split(",") if each.strip()],
        help="a proxy (address or network) whose X-Forwarded-For names the client "
        "(repeatable; default: none, the peer's address counts)",
    )
    p.add_argument(
        "--abandon-after",
        type=float,
        default=str(_env("abandon-after", defaults.abandon_after)),
        help="seconds a table of bots only plays with nobody watching before it is "
        "closed (%(default)s)",
    )
    p.add_argument(
        "--evict-after",
        type=float,
        default=str(_env("evict-after", defaults.evict_after)),
        help="seconds a table nobody has open, with nothing to run, stays in memory (%(default)s)",
    )
    p.add_argument(
        "--lobby-new-every",
        type=float,
        default=str(_env("lobby-new-every", defaults.lobby_new_every)),
        help="seconds a lobby socket's new tables are held, to go in one frame (%(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Check the port and the database, then serve until interrupted."""
    problem = _cluster_problem(args)
    if problem:
        print(f"tienlen serve: {problem}", file=sys.stderr)
        return 2
    settings = settings_of(args)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    try:
        sock = socket.create_server((settings.host, settings.port), reuse_port=False)
        sock.set_inheritable(True)
    except OSError as e:
        print(
            f"tienlen serve: cannot listen on {settings.host}:{settings.port}: "
            f"{e.strerror or e} (is another server running?)",
            file=sys.stderr,
        )
        return 2
    try:
        if args.workers > 1:
            return _supervise(settings, sock, args.workers)
        return asyncio.run(_serve(settings, sock))
    finally:
        sock.close()


def _cluster_problem(args: argparse.Namespace) -> str | None:
    """Why the cluster options cannot work together (``None``: they can)."""
    if args.workers < 1:
        return "--workers must be at least 1"
    if args.workers > 1 and not args.redis_url:
        return (
            "--workers runs several nodes on one port: they need --redis-url (and a "
            "PostgreSQL --database-url) to share the tables"
        )
    if args.advertise_url and (not args.redis_url or args.workers > 1):
        return "--advertise-url is one cluster node's own address: it needs --redis-url, one worker"
    if args.redis_url and not (args.database_url or "").startswith("postgresql"):
        return "a cluster node (--redis-url) needs a PostgreSQL --database-url, not SQLite"
    if not 0 < args.lease_renew < args.lease_ttl:
        return "--lease-renew must be positive and shorter than --lease-ttl"
    if not args.stop_timeout > 0:
        return "--stop-timeout must be positive"
    if not (args.db_timeout > 0 and args.db_connect_timeout > 0):
        return "--db-timeout and --db-connect-timeout must be positive"
    return None


def _worker(settings: Any, sock: socket.socket, parent: int) -> None:
    """One node process of ``--workers`` (started by :func:`_supervise`): it stops (handing
    its leases back) when the supervisor ``parent`` dies, even of SIGKILL."""
    from tienlen.apps.server.lifeline import die_with_parent

    die_with_parent(parent, signal.SIGTERM)
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    sys.exit(asyncio.run(_serve(settings, sock)))


def _supervise(settings: Any, sock: socket.socket, workers: int) -> int:
    """Run ``workers`` node processes on the one listening socket (each accepts from it);
    one that dies is started again, but one that could not start (its database, exit 2)
    stops them all with status 2; SIGTERM or Ctrl-C stops them all (each within its
    ``stop_timeout``). If the supervisor dies, even of SIGKILL, its workers stop too."""
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")
    stopping = threading.Event()

    def stop(_sig: int, _frame: Any) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    procs: list[multiprocessing.process.BaseProcess] = []
    status = 0
    try:
        while not stopping.is_set():
            if any(p.exitcode == 2 for p in procs):
                status = 2  # it said why on stderr; the others would fail alike
                break
            procs = [p for p in procs if p.is_alive()]
            for _ in range(workers - len(procs)):
                worker = spawn.Process(target=_worker, args=(settings, sock, os.getpid()))
                worker.start()
                procs.append(worker)
            stopping.wait(0.5)
    finally:
        for each in procs:
            each.terminate()  # each stops cleanly on SIGTERM (giving back its leases)
        for each in procs:  # each ends itself at its deadline; this one is a last resort
            each.join(settings.stop_timeout + STOP_SLACK)
            if each.is_alive():
                each.kill()
                each.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status


async def _serve(settings: Any, sock: socket.socket) -> int:
    import uvicorn

    from tienlen.apps.server import Server, create_app
    from tienlen.apps.server.lifeline import OVERDUE, Deadline

    # From the signal on, the stop is bounded: whatever it waits on (a database or a Redis
    # that stopped answering, a bot worker), the process exits at the deadline.
    deadline = Deadline(settings.stop_timeout, what="stopping the node")

    class Node(uvicorn.Server):
        """uvicorn, whose stopping signal starts the node's stop deadline."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            deadline.arm()
            super().handle_exit(sig, frame)

    server = Server(settings)
    try:
        await server.start()
    except Exception as e:
        where = settings.database_url or settings.url
        print(
            f"tienlen serve: cannot use the database {where}: "
            f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300],
            file=sys.stderr,
        )
        await server.engine.dispose()
        return 2
    config = uvicorn.Config(
        create_app(settings, server=server),
        log_level=settings.log_level,
        ws_max_size=settings.transport_cap,
        # Frames are small JSON: compressing each costs more CPU than the bytes it saves.
        ws_per_message_deflate=False,
        lifespan="on",
        # Open sockets are closed (1012: the browser reconnects, to another node) within a
        # third of the stop deadline; the leases and the database get the rest.
        timeout_graceful_shutdown=max(1, int(settings.stop_timeout / 3)),
        # The server reads X-Forwarded-For itself, from --trusted-proxy addresses only.
        proxy_headers=False,
    )
    node = f", cluster node {server.cluster.node}" if server.cluster is not None else ""
    print(
        f"tienlen serve: http://{settings.host}:{settings.port} (database {settings.url}{node})",
        file=sys.stderr,
    )
    # uvicorn raises the signal that stopped it again once it has shut down. SIGTERM's
    # default action then killed the process, and SIGINT cancelled the shutdown below, before
    # the bot pool and the database were closed (the pool's semaphores leaked, aiosqlite's
    # thread answered a closed loop). Handlers that do nothing let them close.
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda _sig, _frame: None)
    status = 0
    try:
        await Node(config).serve(sockets=[sock])
    finally:
        deadline.arm()
        try:
            await asyncio.wait_for(server.stop(), max(deadline.left() - STOP_MARGIN, 0.0))
        except TimeoutError:
            print(
                f"tienlen serve: the node did not stop within {settings.stop_timeout:g} s "
                "(its leases run out on their own)",
                file=sys.stderr,
            )
            status = OVERDUE
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status

"""``flip7 serve``: the web app on http://127.0.0.1:8000 with an SQLite file by default.

``--host 0.0.0.0`` lets friends on the same network join (the addresses they can open are
printed at start); ``--public-url`` names the address they open behind a proxy or tunnel,
and invite links then start with it.

FastAPI and uvicorn are imported only when the command runs, so the rest of the command
line works without the ``server`` extra.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys

from flip7.core.errors import Flip7Error

__all__ = ["add_arguments", "run"]


class ServeError(Flip7Error):
    """The server cannot start (a missing extra, a bad option)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
        "network, so that friends on your Wi-Fi can join)",
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--public-url", metavar="URL",
        help="the address friends open when the server is behind a proxy or tunnel, e.g. "
        "https://flip7.example.org; invite links start with it (default: "
        "$FLIP7_PUBLIC_URL, else the address the inviter's browser used)",
    )  # fmt: skip
    parser.add_argument(
        "--smtp", metavar="URL", default=os.environ.get("FLIP7_SMTP_URL") or None,
        help="send turn alerts by e-mail through this SMTP server: smtp://host:25, "
        "smtp+starttls://host:587 or smtps://host:465; user and password from "
        "$FLIP7_SMTP_USER and $FLIP7_SMTP_PASSWORD (default: $FLIP7_SMTP_URL, else no e-mail)",
    )  # fmt: skip
    parser.add_argument(
        "--smtp-from", metavar="ADDRESS", default=os.environ.get("FLIP7_SMTP_FROM") or None,
        help="the sender of those e-mails (default: $FLIP7_SMTP_FROM, else flip7@<SMTP host>)",
    )  # fmt: skip
    parser.add_argument(
        "--push-contact", metavar="URL", default=os.environ.get("FLIP7_PUSH_CONTACT") or None,
        help="the contact that Web Push turn alerts carry for the browsers' push services, "
        "a mailto: or https: URL (default: $FLIP7_PUSH_CONTACT, else mailto: the --smtp-from "
        "address, else mailto:flip7@localhost)",
    )  # fmt: skip
    parser.add_argument(
        "--db",
        metavar="URL_OR_PATH",
        help="database: an SQLite file path, sqlite:///FILE or postgresql://USER@HOST/DB "
        "(default: $FLIP7_DATABASE_URL, else flip7.db in the working folder)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="run as one of many processes sharing the --db PostgreSQL database, which "
        "forward to each other through this Redis server, e.g. redis://127.0.0.1:6379/0 "
        "(default: $FLIP7_REDIS_URL, else one process; see docs/deploy.md)",
    )
    parser.add_argument(
        "--slot", metavar="N/COUNT",
        help="with --redis behind the proxy recipe: this is process N of COUNT (the "
        "recipe's server appN), so the tables it makes are those the proxy routes to it "
        "(default: $FLIP7_SLOT, else any; see docs/deploy.md)",
    )  # fmt: skip
    parser.add_argument(
        "--metrics", metavar="HOST:PORT",
        help="serve Prometheus metrics (GET /metrics) on this address, apart from the "
        "players' port, e.g. 127.0.0.1:9101 (default: $FLIP7_METRICS, else none; see "
        "docs/deploy.md)",
    )  # fmt: skip
    parser.add_argument(
        "--trusted-proxy", action="append", default=[], metavar="ADDRESS",
        help="the address of a reverse proxy in front (repeatable, e.g. 127.0.0.1 for "
        "HAProxy on this machine): its X-Forwarded-For names each player, whose "
        "per-address limits its requests then count for. No other peer's forwarded "
        "headers are believed, so this port must be reachable from the proxy only: "
        "--host 127.0.0.1 or a private address, and a firewall (see docs/deploy.md)",
    )  # fmt: skip
    parser.add_argument(
        "--bot-delay", type=float, default=0.8, metavar="S",
        help="seconds a bot waits before each decision, so people can follow (default 0.8)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, metavar="S",
        help="make every game's shuffle reproducible (demos and tests; never on a public server)",
    )  # fmt: skip
    parser.add_argument(
        "--bot", action="append", default=[], metavar="MODULE:CLASS",
        help="offer a bot of your own in the lobby (repeatable; see the README's Bots)",
    )  # fmt: skip
    parser.add_argument(
        "--limit", action="append", default=[], metavar="NAME=VALUE",
        help="change one of the server's limits (repeatable; the README's Limits table "
        "lists them with their defaults), e.g. --limit tables_per_minute=30",
    )  # fmt: skip
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"],
        help="log level of the one-line JSON logs on standard error (default info)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from flip7.server.api.app import create_app
        from flip7.server.api.guard import server_config
        from flip7.server.api.startup import (
            PortUnavailable,
            address_lines,
            bind_listener,
            prepare_database,
            reachable_urls,
            url_of,
        )
        from flip7.server.base.logs import configure_logging
        from flip7.server.base.settings import (
            ClusterError,
            LimitError,
            PublicUrlError,
            Settings,
            Slot,
            database_url,
            metrics_address,
            public_url,
            redis_url,
            with_limits,
        )
    except ImportError as exc:
        raise ServeError(
            f"the server needs the 'server' extra (pip install 'flip7[server]'): {exc}"
        ) from None
    if not 0 < args.port < 65536:
        raise ServeError(f"--port must be 1 to 65535, got {args.port}")
    if args.bot_delay < 0:
        raise ServeError(f"--bot-delay must be 0 or more, got {args.bot_delay}")
    try:
        public = public_url(args.public_url)
    except PublicUrlError as exc:
        raise ServeError(f"--public-url: {exc}") from None
    from flip7.bots import parse_bot_spec

    for spec in args.bot:
        parse_bot_spec(spec).make(0)  # fails here, with a clear message, not mid-game
    if args.smtp is not None:
        from flip7.server.services.mail import SmtpUrlError, smtp_server

        try:
            smtp_server(args.smtp, args.smtp_from, os.environ)
        except SmtpUrlError as exc:
            raise ServeError(f"--smtp: {exc}") from None
    configure_logging(args.log_level)
    url = database_url(args.db)
    try:
        redis = redis_url(args.redis, url)
    except ClusterError as exc:
        raise ServeError(f"--redis: {exc}") from None
    slot_text = args.slot if args.slot is not None else os.environ.get("FLIP7_SLOT", "")
    slot = None
    if slot_text.strip():
        try:
            slot = Slot.parse(slot_text)
        except ClusterError as exc:
            raise ServeError(f"--slot: {exc}") from None
        if redis is None:
            raise ServeError("--slot: a slot is for one of many processes (--redis)")
    metrics_text = args.metrics if args.metrics is not None else os.environ.get(
        "FLIP7_METRICS", "")
    metrics = None
    if metrics_text.strip():
        try:
            metrics = metrics_address(metrics_text)
        except ValueError as exc:
            raise ServeError(f"--metrics: {exc}") from None
    contact = args.push_contact or (f"mailto:{args.smtp_from}" if args.smtp_from else None)
    if contact is not None and not contact.startswith(("mailto:", "https://")):
        raise ServeError(f"--push-contact: {contact!r} is not a mailto: or https:// URL")
    settings = Settings(
        database_url=url,
        redis_url=redis,
        slot=slot,
        metrics=metrics,
        trusted_proxies=tuple(args.trusted_proxy),
        bot_delay=args.bot_delay,
        seed=args.seed,
        extra_bots=tuple(args.bot),
        public_url=public,
        smtp_url=args.smtp,
        smtp_from=args.smtp_from,
        host=args.host,
        reachable_urls=reachable_urls(args.host, args.port),
    )
    if contact is not None:
        settings = dataclasses.replace(settings, push_contact=contact)
    try:
        settings = with_limits(settings, args.limit)
    except LimitError as exc:
        raise ServeError(f"--limit: {exc}") from None
    for name, bits in (("ipv4_block_prefix", 32), ("ipv6_block_prefix", 128)):
        if getattr(settings, name) > bits:
            raise ServeError(f"--limit: limit {name} must be at most {bits}, "
                             f"got {getattr(settings, name)}")  # fmt: skip
    # Before uvicorn, and before the database lease (which a refusal would leave held for a
    # while): a busy port is refused here with one line saying what to do, exit status 2.
    if metrics is not None:
        try:
            bind_listener(*metrics).close()
        except PortUnavailable as exc:
            raise ServeError(f"--metrics: {exc}") from None
    listener = bind_listener(args.host, args.port)
    try:
        # Another server on this database is refused here with one line and exit status
        # 2, and a new database file is announced, not created in silence.
        for line in prepare_database(settings):
            print(line, file=sys.stderr)
        shown = url.split("@")[-1] if "@" in url else url
        where = url_of(args.host, args.port)
        print(f"flip7 serving on {where} (database {shown})", file=sys.stderr)
        for line in address_lines(settings, args.port):
            print(line, file=sys.stderr)
        # The same construction as the tests' servers (flip7.server.api.guard): header
        # deadline, keep-alive, connection ceiling, WebSocket frame size.
        config = server_config(
            create_app(settings),
            settings,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            log_config=None,  # keep the JSON lines set up above
            access_log=logging.getLogger("flip7.server").isEnabledFor(logging.DEBUG),
        )
        # On the socket bound above, so that nothing else can take the port in between.
        uvicorn.Server(config).run(sockets=[listener])
    finally:
        listener.close()
    return 0

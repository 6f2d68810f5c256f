"""What ``flip7 serve`` does before it starts the web server: its port and its database.

It binds the listening socket itself (:func:`bind_listener`), so that a busy port is one
clear line saying what to do and exit status 2 rather than a traceback from inside uvicorn,
which then serves on that socket. It finds the addresses friends can reach the server on
(:func:`reachable_urls`) and says them (:func:`address_lines`). It opens the database
(creating and migrating it if need be) and takes the lease, refused in one line too; the app
then adopts the lease (:func:`flip7.server.store.lease.reserve`). It also says which database it
uses, and loudly when it has just created it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import socket

from flip7.core.errors import Flip7Error
from flip7.server.base.settings import Settings
from flip7.server.store.database import Store, describe_database
from flip7.server.store.lease import DatabaseInUse, reserve

__all__ = [
    "DatabaseUnavailable",
    "PortUnavailable",
    "address_lines",
    "bind_listener",
    "is_loopback",
    "prepare_database",
    "reachable_urls",
    "url_of",
]

# Hosts that mean "every network of this machine".
_EVERYWHERE = frozenset({"0.0.0.0", "::", ""})
# Where the outgoing address is looked up: documentation addresses (RFC 5737, RFC 3849)
# that are never answered. Connecting a UDP socket only picks the route; nothing is sent.
_PROBES = ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1"))


class PortUnavailable(Flip7Error):
    """The server cannot listen where it was asked: the port is taken, needs privileges, or
    the address is not this machine's."""


def _other_port(port: int) -> int:
    return port + 1 if port < 65535 else port - 1


def bind_listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` for uvicorn to listen on, or
    :class:`PortUnavailable` with one line saying what is wrong and what to do.

    ``0.0.0.0`` is every IPv4 network; ``::`` every network, IPv4 too where the system
    allows it; a name (``localhost``) is looked up."""
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as exc:
        raise PortUnavailable(
            f"cannot listen on {host!r}: no such address ({exc}); use 127.0.0.1 (this "
            "machine only) or 0.0.0.0 (every network): make serve HOST=0.0.0.0"
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    # As uvicorn does: a port left in TIME_WAIT by a server just stopped can be bound
    # again at once; one another server listens on still cannot.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6 and host == "::":
        # IPv4 too; a system without dual-stack sockets still listens on IPv6.
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        other = _other_port(port)
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailable(
                f"port {port} on {host} is already in use; stop the other server or choose "
                f"another port: make serve PORT={other} (or flip7 serve --port {other})"
            ) from None
        if exc.errno == errno.EACCES:
            raise PortUnavailable(
                f"port {port} on {host} needs administrator rights (ports below 1024 "
                "usually do); choose a higher port: make serve PORT=8000 (or flip7 serve "
                "--port 8000)"
            ) from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise PortUnavailable(
                f"{host} is not an address of this machine; use 127.0.0.1 (this machine "
                "only) or 0.0.0.0 (every network): make serve HOST=0.0.0.0"
            ) from None
        raise PortUnavailable(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}"
        ) from None
    return sock


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]").split("%")[0])
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host``: ``localhost``, ``127.x``, ``::1``.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("192.168.1.20")
    (False, False)
    """
    name = host.strip().lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    ip = _ip(name)
    if ip is not None:
        return ip.is_loopback
    if name in _EVERYWHERE:
        return False
    try:
        found = {info[4][0] for info in socket.getaddrinfo(name, None)}
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(_loopback_text(address) for address in found)


def _loopback_text(address: object) -> bool:
    ip = _ip(str(address))
    return ip is not None and ip.is_loopback


def url_of(host: str, port: int) -> str:
    """``http://host:port``, an IPv6 address in brackets.

    >>> url_of("192.168.1.20", 8000), url_of("fd00::5", 8080)
    ('http://192.168.1.20:8000', 'http://[fd00::5]:8080')
    """
    ip = _ip(host)
    shown = f"[{ip}]" if isinstance(ip, ipaddress.IPv6Address) else host
    return f"http://{shown}:{port}"


def _machine_addresses(families: tuple[socket.AddressFamily, ...]) -> list[str]:
    """This machine's addresses other machines may reach, the one its traffic leaves by
    first: loopback, link-local (fe80::, 169.254.x) and unspecified ones are left out."""
    found: list[str] = []
    for family, probe in _PROBES:
        if family not in families:
            continue
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.append(str(udp.getsockname()[0]))
        except OSError:
            pass  # no route of that family: no network, or no IPv6
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        infos = []
    found.extend(str(info[4][0]) for info in infos if info[0] in families)
    kept: list[str] = []
    for text in found:
        ip = _ip(text)
        if ip is None or ip.is_loopback or ip.is_link_local or ip.is_unspecified:
            continue
        if str(ip) not in kept:
            kept.append(str(ip))
    return kept


def reachable_urls(host: str, port: int) -> tuple[str, ...]:
    """The URLs friends can open to reach a server listening on ``host``:``port``: none
    for a loopback host, this machine's addresses for ``0.0.0.0`` (IPv4) and ``::`` (both),
    else the host itself."""
    if is_loopback(host):
        return ()
    if host in _EVERYWHERE:
        families: tuple[socket.AddressFamily, ...] = (
            (socket.AF_INET,) if host == "0.0.0.0" else (socket.AF_INET, socket.AF_INET6)
        )
        return tuple(url_of(address, port) for address in _machine_addresses(families))
    return (url_of(host, port),)


def address_lines(settings: Settings, port: int) -> list[str]:
    """What ``flip7 serve`` tells the operator about where friends can reach it."""
    host = settings.host
    lines: list[str] = []
    if settings.public_url is not None:
        lines.append(f"flip7: invite links start with the public URL {settings.public_url}")
    if is_loopback(host):
        lines.append(
            f"flip7: only this machine can open {url_of(host, port)}; to let friends on "
            "your network join, restart with make serve HOST=0.0.0.0 (or flip7 serve "
            "--host 0.0.0.0)"
        )
    elif settings.reachable_urls:
        lines.append(
            "flip7: friends on your network can open "
            + ", ".join(settings.reachable_urls)
            + " (open it there yourself too, and your invite links will use it)"
        )
    else:
        lines.append(
            f"flip7: listening on {host} port {port}, but no network address of this "
            "machine was found: connect it to a network, then restart"
        )
    return lines


def _redis_shown(url: str | None) -> str:
    """A Redis URL without its password."""
    return "" if url is None else url.rsplit("@", 1)[-1]


class DatabaseUnavailable(Flip7Error):
    """The database cannot be opened (unreachable, a bad path, not a database...)."""


def prepare_database(settings: Settings) -> list[str]:
    """Open the database ``settings`` name and take its lease for this process; the lines
    to tell the operator. Raises :class:`~flip7.server.store.lease.DatabaseInUse` when another
    server holds it, :class:`DatabaseUnavailable` when it cannot be opened."""
    return asyncio.run(_prepare(settings))


async def _prepare(settings: Settings) -> list[str]:
    many = settings.redis_url is not None
    try:
        # Many processes share the database: each owns some tables (flip7.server.cluster.node)
        # instead of one holding the whole database.
        store = await Store.open(
            settings.database_url, lease_seconds=None if many else settings.lease_seconds,
            shared=many,
        )
    except DatabaseInUse:
        raise
    except Exception as exc:
        reason = getattr(exc, "orig", None) or exc
        raise DatabaseUnavailable(
            f"cannot open the database {describe_database(settings.database_url)}: {reason}"
        ) from None
    if many:
        await store.close()
        return [f"flip7: one of many processes on the database {store.description}, "
                f"forwarding through Redis at {_redis_shown(settings.redis_url)}"]
    assert store.lease is not None
    reserve(settings.database_url, store.lease.holder)
    # The app takes the lease over within a second or two, well before it expires.
    await store.close(release=False)
    if store.created and store.file is not None:
        return [f"flip7: creating a new database at {store.file.path}"]
    return [f"flip7: using the database {store.description}"]

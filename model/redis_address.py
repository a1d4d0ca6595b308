"""Where Parlour's Redis is: one server's URL, or a primary that Redis Sentinel names and follows through failovers.

Every process is handed its Redis as one string (`Settings.redis_url`, and `REDIS_URL` in the environment of the
processes `make run` starts), so a Sentinel setup is written as a URL too:

    redis+sentinel://[:<password>@]<host>:<port>[,<host>:<port>...]/<master name>[?sentinel_password=<password>]

The sentinels are listed in the netloc; the path names the primary as the sentinels know it (`sentinel monitor
<name> ...`); `password` is the primary's and replicas' `requirepass`, `sentinel_password` the sentinels' own.
`PARLOUR_REDIS_SENTINELS` and its companions compose this URL (`model.settings.redis_url`); `store.connection`
reads it back (`SentinelAddress.parse`). This module is the only one that knows the format.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

SENTINEL_SCHEME = "redis+sentinel"


class AddressError(ValueError):
    """A Redis address that cannot be read; says what is wrong with it."""


def parse_sentinels(text: str) -> tuple[tuple[str, int], ...]:
    """`host:port,host:port,...` as (host, port) pairs (`[v6]:port` too); empty text is no sentinel."""
    sentinels = []
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        host, colon, port = part.rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if not (colon and host and port.isascii() and port.isdigit() and 0 < int(port) < 65536):
            raise AddressError(f"a sentinel is written host:port, not {part!r}")
        sentinels.append((host, int(port)))
    return tuple(sentinels)


@dataclass(frozen=True)
class SentinelAddress:
    """A primary found through Redis Sentinel: the sentinels to ask, the primary's name, and the passwords."""

    sentinels: tuple[tuple[str, int], ...]
    master: str
    password: str | None = None
    sentinel_password: str | None = None

    def __post_init__(self) -> None:
        if not self.sentinels:
            raise AddressError("a Sentinel address names at least one sentinel")
        if not self.master or "/" in self.master:
            raise AddressError(f"the primary's name must be a name as the sentinels know it, not {self.master!r}")

    def url(self) -> str:
        """This address as the one string every process is handed."""
        hosts = ",".join(f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in self.sentinels)
        auth = f":{quote(self.password, safe='')}@" if self.password else ""
        query = f"?{urlencode({'sentinel_password': self.sentinel_password})}" if self.sentinel_password else ""
        return f"{SENTINEL_SCHEME}://{auth}{hosts}/{quote(self.master, safe='')}{query}"

    def shown(self) -> str:
        """The address as a log line or banner shows it: no password."""
        hosts = ",".join(f"{host}:{port}" for host, port in self.sentinels)
        return f"Sentinel primary {self.master!r} via {hosts}"

    @classmethod
    def parse(cls, url: str) -> SentinelAddress | None:
        """The Sentinel address a URL names; None for a URL of one server (`redis://`, `unix://`, ...)."""
        parts = urlsplit(url)
        if parts.scheme != SENTINEL_SCHEME:
            return None
        auth, _, hosts = parts.netloc.rpartition("@")
        password = unquote(auth.partition(":")[2]) or None
        query = parse_qs(parts.query)
        sentinel_password = query.get("sentinel_password", [""])[0] or None
        return cls(parse_sentinels(hosts), unquote(parts.path.strip("/")), password, sentinel_password)

"""Hosts on one machine: network namespaces on two switches, whose links the test cuts and joins again.

Each host is a network namespace of its own with a link (a veth pair) to each network it is on. A
network is a bridge inside one more namespace, the hub: `back` joins Redis, the workers and the API
processes' Redis side; `front` joins the API processes' public side and the clients. Cutting a host from a
network takes its port off that bridge: the host's link stays up, but whatever it sends there vanishes
and nothing comes back, as when a switch port or a firewall drops packets (the harsher fault: a connect
hangs, a sent request waits for an answer that never comes). Joining puts the port back on the bridge.
A one-way drop (`Hosts.drop_one_way`, a `tc` queue of length 0 for one destination) loses only what one host
sends another: the other's requests arrive and are carried out, their answers vanish.

Addresses: one private /24, SUBNET.0/24 (back: its lower half, front: its upper half), only on links
inside namespaces this module made. The machine's rules allow only loopback or the project's own test
hosts in namespaces the session made: nothing here touches the machine's own namespace, routes or
addresses, and no namespace has a route anywhere else.

A process runs inside a host with `ip netns exec` (`Hosts.command`); a thread of the test enters one with
setns(2) (`Hosts.inside`) and every socket it opens there stays in that namespace.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SUBNET = "10.213.38"
"""The /24 every address is in (private, RFC 1918), used only inside the namespaces made here."""
NETWORKS = {"back": 1, "front": 129}
"""Each network and its first host number: back is SUBNET.0/25, front SUBNET.128/25."""
PREFIX_LENGTH = 25
NETNS_DIR = Path("/run/netns")
NAME_PREFIX = "parlour-test-"
CLONE_NEWNET = 0x40000000
IP_TIMEOUT = 30.0


def unavailable() -> str | None:
    """Why network namespaces cannot be made here (a reason to skip), or None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (the test makes them with `ip netns add`)"
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "no `ip` or `tc` command (Debian's iproute2 package)"
    probe = Host("probe", f"{NAME_PREFIX}{os.getpid()}-probe")
    try:
        ip("netns", "add", probe.namespace)
        try:
            ip("-n", probe.namespace, "link", "add", "probe", "type", "bridge")
            ip("-n", probe.namespace, "link", "add", "back", "type", "veth", "peer", "name", "front")
            tc(probe, "qdisc", "add", "dev", "back", "root", "handle", "1:", "htb", "default", "1")
            tc(probe, "qdisc", "add", "dev", "front", "root", "pfifo", "limit", "0")
        finally:
            ip("netns", "del", probe.namespace)
    except (subprocess.CalledProcessError, OSError) as error:
        detail = error.stderr.strip() if isinstance(error, subprocess.CalledProcessError) else str(error)
        return f"cannot make a network namespace with a bridge, veth links and htb here (unshare forbidden?): {detail}"
    return None


def ip(*args: str) -> None:
    """Run one `ip` command; raise CalledProcessError with its message when it fails."""
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=IP_TIMEOUT)


def tc(host: Host, *args: str) -> None:
    """Run one `tc` command inside a host."""
    subprocess.run(["tc", "-n", host.namespace, *args], check=True, capture_output=True, text=True, timeout=IP_TIMEOUT)


def remove_leftovers() -> None:
    """Delete the namespaces an earlier test run left behind (its process is gone)."""
    if not NETNS_DIR.is_dir():
        return
    for path in NETNS_DIR.glob(f"{NAME_PREFIX}*"):
        owner = path.name.removeprefix(NAME_PREFIX).split("-", 1)[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                ip("netns", "del", path.name)


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")


@dataclass
class Host:
    """One machine: a namespace and its address on each network it is on."""

    name: str
    namespace: str
    addresses: dict[str, str] = field(default_factory=dict)

    def address(self, network: str) -> str:
        """The host's address on a network."""
        return self.addresses[network]


@dataclass
class Hosts:
    """The namespaces of one test: the hub with its bridges, and the hosts; `remove` deletes them all."""

    prefix: str = field(default_factory=lambda: f"{NAME_PREFIX}{os.getpid()}-")
    hosts: dict[str, Host] = field(default_factory=dict)
    _made: list[str] = field(default_factory=list)
    _cut: set[tuple[str, str]] = field(default_factory=set)  # (host, network)
    _dropping: set[tuple[str, str]] = field(default_factory=set)  # (sender, network)
    _next: dict[str, int] = field(default_factory=lambda: dict(NETWORKS))

    @property
    def hub(self) -> str:
        """The namespace holding the networks' bridges."""
        return f"{self.prefix}hub"

    def make_networks(self) -> None:
        """The hub namespace and a bridge in it for each network."""
        self._add_namespace(self.hub)
        for network in NETWORKS:
            ip("-n", self.hub, "link", "add", network, "type", "bridge")
            ip("-n", self.hub, "link", "set", network, "up")

    def add(self, name: str, *networks: str) -> Host:
        """A host on these networks, each reached through its own link (named after the network inside the host)."""
        host = Host(name, f"{self.prefix}{name}")
        self._add_namespace(host.namespace)
        ip("-n", host.namespace, "link", "set", "lo", "up")
        for network in networks:
            number = self._next[network]
            self._next[network] += 1
            address = f"{SUBNET}.{number}"
            port = self.port(host, network)
            ip("-n", self.hub, "link", "add", port, "type", "veth", "peer", "name", network, "netns", host.namespace)
            ip("-n", self.hub, "link", "set", port, "master", network, "up")
            ip("-n", host.namespace, "addr", "add", f"{address}/{PREFIX_LENGTH}", "dev", network)
            ip("-n", host.namespace, "link", "set", network, "up")
            host.addresses[network] = address
        self.hosts[name] = host
        return host

    @staticmethod
    def port(host: Host, network: str) -> str:
        """The name of the host's port on the network's bridge (an interface name: 15 characters at most)."""
        return f"{network[0]}-{host.name}"[:15]

    def cut(self, host: Host, network: str) -> None:
        """Take the host's port off the network's bridge: its packets there vanish, none reach it."""
        ip("-n", self.hub, "link", "set", self.port(host, network), "nomaster")
        self._cut.add((host.name, network))

    def join(self, host: Host, network: str) -> None:
        """Put the host's port back on the network's bridge."""
        ip("-n", self.hub, "link", "set", self.port(host, network), "master", network)
        self._cut.discard((host.name, network))

    def drop_one_way(self, sender: Host, network: str, receiver: Host) -> None:
        """Make whatever the sender sends the receiver on the network vanish, one way only: the receiver's packets
        still arrive (its requests are carried out, their answers lost). One such drop per sender and network."""
        interface = ["dev", network]
        tc(sender, "qdisc", "add", *interface, "root", "handle", "1:", "htb", "default", "1")
        for band in ("1:1", "1:2"):  # 1:1 passes, 1:2 feeds a queue of length 0: it drops every packet
            tc(
                sender,
                "class",
                "add",
                *interface,
                "parent",
                "1:",
                "classid",
                band,
                "htb",
                "rate",
                "10gbit",
                "quantum",
                "60000",
            )
        tc(sender, "qdisc", "add", *interface, "parent", "1:2", "handle", "20:", "pfifo", "limit", "0")
        to_receiver = ["match", "ip", "dst", f"{receiver.address(network)}/32"]
        tc(sender, "filter", "add", *interface, "parent", "1:", "protocol", "ip", "u32", *to_receiver, "flowid", "1:2")
        self._dropping.add((sender.name, network))

    def stop_dropping(self, sender: Host, network: str) -> None:
        """End the sender's one-way drop on the network."""
        tc(sender, "qdisc", "del", "dev", network, "root")
        self._dropping.discard((sender.name, network))

    def restore_all(self) -> None:
        """Join every link still cut and end every drop."""
        for name, network in sorted(self._cut):
            self.join(self.hosts[name], network)
        for name, network in sorted(self._dropping):
            self.stop_dropping(self.hosts[name], network)

    def command(self, host: Host, argv: list[str]) -> list[str]:
        """A command line that runs `argv` inside the host."""
        return ["ip", "netns", "exec", host.namespace, *argv]

    @contextlib.contextmanager
    def inside(self, host: Host) -> Iterator[None]:
        """Move this thread into the host's namespace for the block (threads started in it start there too)."""
        with open("/proc/thread-self/ns/net", "rb") as home, open(NETNS_DIR / host.namespace, "rb") as target:
            _setns(target.fileno())
            try:
                yield
            finally:
                _setns(home.fileno())

    def remove(self) -> None:
        """Delete every namespace made (their links and addresses go with them); stop the processes inside first."""
        for namespace in reversed(self._made):
            with contextlib.suppress(subprocess.CalledProcessError):
                ip("netns", "del", namespace)
        self._made.clear()

    def _add_namespace(self, namespace: str) -> None:
        ip("netns", "add", namespace)
        self._made.append(namespace)


@contextlib.contextmanager
def made_hosts() -> Iterator[Hosts]:
    """A fresh set of namespaces with their two networks, deleted afterwards, even after a failure."""
    remove_leftovers()
    hosts = Hosts()
    try:
        hosts.make_networks()
        yield hosts
    finally:
        hosts.remove()

"""The lab's QUIC endpoints (aioquic): a server that completes handshakes, and a client that
connects once by name (through the resolver, as an app would), exchanges a ping and closes.

    quic.py serve ADDRESS PORT CERTIFICATE_CHAIN KEY [draft-29]
    quic.py connect NAME PORT CA_CERTIFICATE [VERSION]
    quic.py connect-early NAME PORT CA_CERTIFICATE
                        connects once for a session ticket, then resumes with it and sends stream
                        data in 0-RTT packets before the handshake completes (v1)

VERSION is 1 (the default), 2 (RFC 9369) or draft-29; the server speaks 1 and 2, or draft-29
alone. Two more ways to connect in v1: `after-negotiation` opens with a version of the pattern
RFC 9000 § 15 reserves (0x1a2a3a4a), which the server answers with a Version Negotiation, and
moves to v1 on the same socket; `fragmented` sends datagrams of 1452 bytes, which a path of a
smaller MTU has the kernel cut into IP fragments. aioquic dropped the drafts; draft-29 differs from v1 in its Initial salt (and codepoints
nothing here reads), so both ends swap that salt in: what crosses the wire is a draft-29 Initial
that tshark decrypts with its own table.
"""

import asyncio
import sys

from aioquic.asyncio import connect, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.packet import QuicProtocolVersion

ALPN = ["h3"]
VERSIONS = {"1": QuicProtocolVersion.VERSION_1, "2": QuicProtocolVersion.VERSION_2, "draft-29": 0xFF00001D}
DRAFT_29_SALT = bytes.fromhex("afbfec289993d24c9e9786f19c6111e04390a899")


def speak(versions: list[str]) -> list[int]:
    if "draft-29" in versions:
        from aioquic.quic import crypto
        crypto.INITIAL_SALT_VERSION_1 = DRAFT_29_SALT
    return [VERSIONS[version] for version in versions]


async def serve_until_stopped(address: str, port: int, chain: str, key: str, versions: list[str]) -> None:
    configuration = QuicConfiguration(is_client=False, alpn_protocols=ALPN, supported_versions=speak(versions))
    configuration.load_cert_chain(chain, key)
    tickets = {}
    await serve(address, port, configuration=configuration,
                session_ticket_handler=lambda ticket: tickets.__setitem__(ticket.ticket, ticket),
                session_ticket_fetcher=tickets.pop)
    await asyncio.Event().wait()


RESERVED_VERSION = 0x1A2A3A4A


async def connect_once(name: str, port: int, authority: str, version: str) -> None:
    versions = speak(["1"] if version == "fragmented" else [version]) if version != "after-negotiation" \
        else [RESERVED_VERSION, QuicProtocolVersion.VERSION_1]
    configuration = QuicConfiguration(is_client=True, alpn_protocols=ALPN, server_name=name,
                                      supported_versions=versions)
    if version == "fragmented":
        configuration.max_datagram_size = 1452
    configuration.load_verify_locations(authority)
    async with connect(name, port, configuration=configuration) as client:
        await client.ping()


async def connect_early(name: str, port: int, authority: str) -> None:
    tickets = []
    configuration = QuicConfiguration(is_client=True, alpn_protocols=ALPN, server_name=name)
    configuration.load_verify_locations(authority)
    async with connect(name, port, configuration=configuration, session_ticket_handler=tickets.append) as client:
        await client.ping()
        await asyncio.sleep(0.3)  # the ticket follows the handshake
    if not tickets:
        raise ConnectionError("the server sent no session ticket")
    configuration.session_ticket = tickets[-1]
    async with connect(name, port, configuration=configuration, wait_connected=False) as client:
        _, writer = await client.create_stream()
        writer.write(b"early data from the wire lab")
        await client.wait_connected()
        await client.ping()


def main(arguments: list[str]) -> int:
    if len(arguments) == 4 and arguments[0] == "connect-early":
        try:
            asyncio.run(asyncio.wait_for(connect_early(arguments[1], int(arguments[2]), arguments[3]), timeout=10))
        except (asyncio.TimeoutError, ConnectionError, OSError) as error:
            print(f"QUIC 0-RTT with {arguments[1]} failed: {type(error).__name__} {error}".rstrip())
            return 1
        print(f"QUIC 0-RTT resumption with {arguments[1]} completed")
        return 0
    if len(arguments) in (5, 6) and arguments[0] == "serve" and arguments[5:] in ([], ["draft-29"]):
        versions = arguments[5:] or ["1", "2"]
        asyncio.run(serve_until_stopped(arguments[1], int(arguments[2]), arguments[3], arguments[4], versions))
        return 0
    ways = list(VERSIONS) + ["after-negotiation", "fragmented"]
    if len(arguments) in (4, 5) and arguments[0] == "connect" and (arguments[4:] or ["1"])[0] in ways:
        name, version = arguments[1], (arguments[4:] or ["1"])[0]
        try:
            asyncio.run(asyncio.wait_for(connect_once(name, int(arguments[2]), arguments[3], version), timeout=10))
        except (asyncio.TimeoutError, ConnectionError, OSError) as error:
            print(f"QUIC handshake with {name} failed: {type(error).__name__} {error}".rstrip())
            return 1
        label = version if not version[0].isdigit() else f"v{version}"
        print(f"QUIC {label} handshake with {name} completed")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

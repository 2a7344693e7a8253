"""The lab's QUIC endpoints (aioquic): a server that completes handshakes, and a client that
connects once by name (through the resolver, as an app would), exchanges a ping and closes.

    quic.py serve ADDRESS PORT CERTIFICATE_CHAIN KEY [VERSION]
    quic.py connect NAME PORT CA_CERTIFICATE [VERSION]

VERSION is v1 (the default), v2 or draft-29. aioquic dropped the drafts; draft-29 differs from v1
in its Initial salt (and codepoints nothing here reads), so both ends swap that salt in: what
crosses the wire is a draft-29 Initial that tshark decrypts with its own table.
"""

import asyncio
import sys

from aioquic.asyncio import connect, serve
from aioquic.quic.configuration import QuicConfiguration

ALPN = ["h3"]
VERSIONS = {"v1": 0x00000001, "v2": 0x6B3343CF, "draft-29": 0xFF00001D}
DRAFT_29_SALT = bytes.fromhex("afbfec289993d24c9e9786f19c6111e04390a899")


def speak(version: str) -> list[int]:
    if version == "draft-29":
        from aioquic.quic import crypto
        crypto.INITIAL_SALT_VERSION_1 = DRAFT_29_SALT
    return [VERSIONS[version]]


async def serve_until_stopped(address: str, port: int, chain: str, key: str, version: str = "v1") -> None:
    configuration = QuicConfiguration(is_client=False, alpn_protocols=ALPN, supported_versions=speak(version))
    configuration.load_cert_chain(chain, key)
    await serve(address, port, configuration=configuration)
    await asyncio.Event().wait()


async def connect_once(name: str, port: int, authority: str, version: str = "v1") -> None:
    configuration = QuicConfiguration(is_client=True, alpn_protocols=ALPN, server_name=name,
                                      supported_versions=speak(version))
    configuration.load_verify_locations(authority)
    async with connect(name, port, configuration=configuration) as client:
        await client.ping()


def main(arguments: list[str]) -> int:
    arguments = list(arguments)
    version = arguments.pop() if arguments and arguments[-1] in VERSIONS else "v1"
    if len(arguments) == 5 and arguments[0] == "serve":
        asyncio.run(serve_until_stopped(arguments[1], int(arguments[2]), arguments[3], arguments[4], version))
        return 0
    if len(arguments) == 4 and arguments[0] == "connect":
        name = arguments[1]
        try:
            asyncio.run(asyncio.wait_for(connect_once(name, int(arguments[2]), arguments[3], version), timeout=10))
        except (asyncio.TimeoutError, ConnectionError, OSError) as error:
            print(f"QUIC handshake with {name} failed: {type(error).__name__} {error}".rstrip())
            return 1
        print(f"QUIC handshake with {name} completed")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

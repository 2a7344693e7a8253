"""The lab's QUIC endpoints (aioquic): a server that completes handshakes, and a client that
connects once by name (through the resolver, as an app would), exchanges a ping and closes.

    quic.py serve ADDRESS PORT CERTIFICATE_CHAIN KEY
    quic.py connect NAME PORT CA_CERTIFICATE
"""

import asyncio
import sys

from aioquic.asyncio import connect, serve
from aioquic.quic.configuration import QuicConfiguration

ALPN = ["h3"]


async def serve_until_stopped(address: str, port: int, chain: str, key: str) -> None:
    configuration = QuicConfiguration(is_client=False, alpn_protocols=ALPN)
    configuration.load_cert_chain(chain, key)
    await serve(address, port, configuration=configuration)
    await asyncio.Event().wait()


async def connect_once(name: str, port: int, authority: str) -> None:
    configuration = QuicConfiguration(is_client=True, alpn_protocols=ALPN, server_name=name)
    configuration.load_verify_locations(authority)
    async with connect(name, port, configuration=configuration) as client:
        await client.ping()


def main(arguments: list[str]) -> int:
    if len(arguments) == 5 and arguments[0] == "serve":
        asyncio.run(serve_until_stopped(arguments[1], int(arguments[2]), arguments[3], arguments[4]))
        return 0
    if len(arguments) == 4 and arguments[0] == "connect":
        name = arguments[1]
        try:
            asyncio.run(asyncio.wait_for(connect_once(name, int(arguments[2]), arguments[3]), timeout=10))
        except (asyncio.TimeoutError, ConnectionError, OSError) as error:
            print(f"QUIC handshake with {name} failed: {type(error).__name__} {error}".rstrip())
            return 1
        print(f"QUIC handshake with {name} completed")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

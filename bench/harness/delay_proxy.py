"""A TCP proxy that adds latency and nothing else: every byte is held `delay/2` in each direction, and a new
connection's first bytes wait one more round trip, as a TCP handshake over the link would. `tc netem` would do it
in the kernel, but this machine's kernel has no sch_netem.

Usage: python3 delay_proxy.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT RTT_MS"""
import asyncio
import collections
import sys
import time

CHUNK = 64 * 1024
QUEUE_LIMIT = 4 << 20  # bytes held per direction: well over the link's bandwidth-delay product


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float, first_delay: float) -> None:
    queue: collections.deque[tuple[float, bytes]] = collections.deque()
    held = 0
    ready = asyncio.Event()
    room = asyncio.Event()
    room.set()

    async def read() -> None:
        nonlocal held
        extra = first_delay
        while True:
            data = await reader.read(CHUNK)
            queue.append((time.monotonic() + delay + extra, data))
            extra = 0.0
            held += len(data)
            ready.set()
            if not data:
                return
            if held > QUEUE_LIMIT:
                room.clear()
                await room.wait()

    async def write() -> None:
        nonlocal held
        while True:
            while not queue:
                ready.clear()
                await ready.wait()
            due, data = queue.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()
            held -= len(data)
            if held <= QUEUE_LIMIT:
                room.set()

    reading = asyncio.create_task(read())
    try:
        await write()
    finally:
        reading.cancel()


async def serve(listen_host: str, listen_port: int, target_host: str, target_port: int, rtt: float) -> None:
    async def handle(client_reader, client_writer) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        try:
            await asyncio.gather(pump(client_reader, server_writer, rtt / 2, rtt),
                                 pump(server_reader, client_writer, rtt / 2, 0.0))
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            for writer in (server_writer, client_writer):
                writer.close()

    server = await asyncio.start_server(handle, listen_host, listen_port, backlog=512)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    host, port, target, target_port, rtt_ms = sys.argv[1:6]
    asyncio.run(serve(host, int(port), target, int(target_port), float(rtt_ms) / 1000))

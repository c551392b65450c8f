"""A client of the live view that stops reading: it speaks the WebSocket
handshake and the Foxglove protocol just far enough to subscribe (each
channel, and the robot's state channel 100 times over, so it asks for a lot),
with a small receive buffer, then never reads again and holds the connection
open until it is killed. Prints "stalled: ..." once it has stopped reading.
With --reading, the same client that reads on (and drops) everything the
server sends, until it is killed: it asks as much of the server, without
the stall. Prints "reading: ..." once it has subscribed.
usage: stalled_client.py [--reading] WS_URL
"""
import base64
import json
import os
import socket
import signal
import struct
import sys
from urllib.parse import urlparse


def frame(op, payload):
    # A client's frame: masked, as RFC 6455 says.
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | op])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_exact(s, n, buf):
    while len(buf) < n:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError("closed")
        buf += chunk
    return buf


def main():
    reading = sys.argv[1] == "--reading"
    u = urlparse(sys.argv[-1])
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if not reading:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((u.hostname, u.port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /{'?' + u.query if u.query else ''} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n")
              .encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf = read_exact(s, len(buf) + 1, buf)
    head, buf = buf.split(b"\r\n\r\n", 1)
    if b" 101 " not in head.split(b"\r\n")[0]:
        sys.exit(f"stalled_client: handshake refused: {head!r}")
    channels = None
    while channels is None:
        buf = read_exact(s, 2, buf)
        op, n = buf[0] & 15, buf[1] & 127
        at = 2
        if n == 126:
            buf = read_exact(s, 4, buf)
            n, at = struct.unpack(">H", buf[2:4])[0], 4
        elif n == 127:
            buf = read_exact(s, 10, buf)
            n, at = struct.unpack(">Q", buf[2:10])[0], 10
        buf = read_exact(s, at + n, buf)
        payload, buf = buf[at:at + n], buf[at + n:]
        if op == 1:
            m = json.loads(payload)
            if m.get("op") == "advertise":
                channels = m["channels"]
    subs, sid = [], 1
    for c in channels:
        for _ in range(100 if c["topic"].endswith("/state") else 1):
            subs.append({"id": sid, "channelId": c["id"]})
            sid += 1
    s.sendall(frame(1, json.dumps({"op": "subscribe", "subscriptions": subs}).encode()))
    if reading:
        print(f"reading: subscribed {len(subs)} times to {len(channels)} channels, reading on",
              flush=True)
        while s.recv(1 << 20):
            pass  # read and dropped, until the server goes or this is killed
        return
    print(f"stalled: subscribed {len(subs)} times to {len(channels)} channels, reading no more",
          flush=True)
    while True:
        signal.pause()  # held open, never read, until killed


main()

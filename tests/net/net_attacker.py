#!/usr/bin/env python3
"""Hostile peers against board agents on 127.0.0.1 until SIGTERM (issue #27; docs/lab.md "Limits").

net_attacker.py PORT [PORT ...]

Against every port, from three other loopback addresses (any 127.x.y.z is this host):
  127.0.0.2  silent: keeps 32 TCP connections open that never say a word, and opens a new one
             whenever the agent closes one (more than the agent's per-address handshake limit);
  127.0.0.3  garbage: connects, sends 512 random bytes instead of a TLS ClientHello, closes;
             about 50 times a second;
  127.0.0.4  slow drip: 8 connections that send a TLS record header and then one byte every
             half second, never completing a handshake.
On SIGTERM it prints one line of counts to stderr and exits 0.
"""
import os
import signal
import socket
import sys
import threading
import time

ports = [int(p) for p in sys.argv[1:]]
stop = threading.Event()
counts = {"silent_opened": 0, "garbage_sent": 0, "drip_opened": 0, "drip_bytes": 0, "connect_failed": 0}
lock = threading.Lock()


def bump(key, n=1):
    with lock:
        counts[key] += n


def connect(src, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, 0))
    s.settimeout(2.0)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        bump("connect_failed")
        return None
    s.setblocking(False)  # the checks below must never wait
    return s


def closed_by_peer(s):
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def hold(src, port, want, greeting, drip, period):
    """Keeps `want` connections from `src` open (reopened as the agent closes them); each new one
    sends `greeting`, and every `period` seconds each sends one random byte when `drip`."""
    held = []
    while not stop.is_set():
        held = [s for s in held if not (closed_by_peer(s) and (s.close() or True))]
        while len(held) < want and not stop.is_set():
            s = connect(src, port)
            if s is None:
                break
            bump("silent_opened" if not drip else "drip_opened")
            try:
                if greeting:
                    s.send(greeting)
            except OSError:
                pass
            held.append(s)
        for s in held if drip else []:
            try:
                s.send(os.urandom(1))
                bump("drip_bytes")
            except OSError:
                pass
        stop.wait(period)
    for s in held:
        s.close()


def silent(port):
    hold("127.0.0.2", port, 32, b"", False, 0.05)


def garbage(port):
    while not stop.is_set():
        s = connect("127.0.0.3", port)
        if s is not None:
            try:
                s.send(os.urandom(512))
                bump("garbage_sent")
            except OSError:
                pass
            s.close()
        stop.wait(0.02)


def drip(port):
    # A TLS handshake record announcing 512 bytes, then one byte at a time.
    hold("127.0.0.4", port, 8, b"\x16\x03\x01\x02\x00", True, 0.5)


def on_term(*_):
    stop.set()


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)
threads = [threading.Thread(target=f, args=(p,), daemon=True) for p in ports for f in (silent, garbage, drip)]
for t in threads:
    t.start()
while not stop.is_set():
    time.sleep(0.1)
for t in threads:
    t.join(timeout=3)
print("net_attacker: " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr)

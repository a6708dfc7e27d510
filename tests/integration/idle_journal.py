#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# idle_journal.py DATA JOURNAL [PORT]: a journal-like workload on two block devices, for
# tests/integration/idle_capture.sh and docs/diagnose-idle.md (not a test itself).
# A writer thread writes bursts of 32 synchronous 1 MiB writes (O_DIRECT, O_DSYNC) to the
# JOURNAL device, holding a lock for the whole burst; a reader thread reads the DATA device
# (O_DIRECT) whenever it gets the lock. So DATA sits idle exactly while JOURNAL works: the
# journal-disk story of a storage server. With PORT, the bursts' data arrives over TCP (a
# client thread sends it to a server thread on 127.0.0.1:PORT), as replication traffic: 1 MiB
# before every fourth write, so the journal's writes, not the network, fill the burst even
# on a loaded machine. The server asks for each 1 MiB (one byte back) so that it crosses the
# wire inside its burst: sent ahead, it would sit in the sockets' buffers (several MiB on lo)
# and a late burst would see no packets.
import mmap
import os
import socket
import sys
import threading
import time

data, journal = sys.argv[1], sys.argv[2]
port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
ROUNDS, BURST, SZ, JSZ, EVERY = 8, 32, 65536, 1 << 20, 4
lock = threading.Lock()
done = threading.Event()
ready = threading.Event()


def recv_exactly(conn, buf):
    view, got = memoryview(buf), 0
    while got < len(buf):
        n = conn.recv_into(view[got:])
        if not n:
            raise EOFError('client went away')
        got += n


def writer():
    fd = os.open(journal, os.O_WRONLY | os.O_DIRECT | os.O_DSYNC)
    buf = mmap.mmap(-1, JSZ)
    buf.write(b'j' * JSZ)
    conn = None
    if port:
        srv = socket.create_server(('127.0.0.1', port))
        ready.set()
        conn, _ = srv.accept()
    for k in range(ROUNDS):
        with lock:
            for i in range(BURST):
                if conn and i % EVERY == 0:
                    conn.sendall(b'g')
                    recv_exactly(conn, buf)
                os.pwrite(fd, buf, ((k * BURST + i) % 32) * JSZ)
        time.sleep(0.15)  # the reader's turn
    done.set()
    os.close(fd)


def client():
    ready.wait()
    with socket.create_connection(('127.0.0.1', port)) as s:
        msg = b'r' * JSZ
        for _ in range(ROUNDS * BURST // EVERY):
            if s.recv(1) != b'g':
                raise EOFError('server went away')
            s.sendall(msg)


def reader():
    fd = os.open(data, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, SZ)
    off = 0
    while not done.is_set():
        with lock:
            for _ in range(4):
                os.preadv(fd, [buf], off)
                off = (off + SZ) % (32 << 20)
        time.sleep(0.001)
    os.close(fd)


threads = [threading.Thread(target=f) for f in (writer, reader) + ((client,) if port else ())]
for t in threads:
    t.start()
for t in threads:
    t.join()

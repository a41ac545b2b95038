#!/usr/bin/env python3
"""Benchmark: server start-up and protocol latency over real pipes (issue 2's measurements).

For N runs (default 100): spawn `neuronlens serve`, time spawn → initialize response, then
tools/list request → response, then stdin EOF → exit. Also reports the resident set size of an idle
server (VmRSS / VmHWM from /proc after initialize + tools/list). Prints a Markdown table; medians and
p90 in milliseconds. Stdlib only. Usage: bench/startup.py [BINARY] [RUNS]
"""
import json
import os
import statistics
import subprocess
import sys
import time

INIT = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
    'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'bench', 'version': '1'}}}).encode() + b'\n'
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
LIST = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
PING = b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n'


def send(proc, data):
    proc.stdin.write(data)
    proc.stdin.flush()


def read_line(proc):
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError('server closed stdout')
    return line


def rss_kib(pid):
    fields = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            key, _, value = line.partition(':')
            fields[key] = value.strip()
    return int(fields['VmRSS'].split()[0]), int(fields['VmHWM'].split()[0])


def one_run(binary):
    t0 = time.perf_counter()
    proc = subprocess.Popen([binary, 'serve'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(proc, INIT)
    read_line(proc)
    t_init = time.perf_counter() - t0
    send(proc, INITIALIZED)
    t1 = time.perf_counter()
    send(proc, LIST)
    listing = read_line(proc)
    t_list = time.perf_counter() - t1
    t2 = time.perf_counter()
    send(proc, PING)
    read_line(proc)
    t_ping = time.perf_counter() - t2
    rss = rss_kib(proc.pid)
    t3 = time.perf_counter()
    proc.stdin.close()
    proc.wait(timeout=5)
    t_exit = time.perf_counter() - t3
    return t_init, t_list, t_ping, t_exit, rss, len(listing)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'build', 'neuronlens')
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    one_run(binary)  # warm-up (page cache, dynamic loader)
    results = [one_run(binary) for _ in range(runs)]
    def row(name, idx):
        xs = sorted(r[idx] * 1000 for r in results)
        return '| %s | %.3f | %.3f | %.3f |' % (name, statistics.median(xs), xs[int(len(xs) * 0.9) - 1], xs[-1])
    print('neuronlens %s, %d runs over pipes, %d CPUs\n' % (binary, runs, os.cpu_count()))
    print('| step | median ms | p90 ms | max ms |\n|---|---|---|---|')
    print(row('spawn → initialize response', 0))
    print(row('tools/list round trip', 1))
    print(row('ping round trip', 2))
    print(row('stdin EOF → exit', 3))
    rss = sorted(r[4][0] for r in results)
    hwm = sorted(r[4][1] for r in results)
    print('\nidle RSS: median %d KiB (peak %d KiB); tools/list response %d bytes' % (
        statistics.median(rss), max(hwm), results[0][5]))


if __name__ == '__main__':
    main()

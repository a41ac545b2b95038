#!/usr/bin/env python3
"""trace-extract benchmark: warm pages of every kind through one server, and cold calls, for one binary or
several side by side (A/B). Stdlib only (plus valgrind for --callgrind); a benchmark, not a test.

    bench/trace_extract_bench.py [--build build] [--binary NAME=PATH ...] [--work /tmp/nl-bench] [--rounds 41]
                                 [--cold-runs 5] [--no-cold] [--callgrind]

Inputs (nl-gen-profile, kept in --work between runs like run_bench.py's): the 1M-instruction export of
run_bench.py's warm_cases and one capture directory (--capture --executions 1000 --kineto-target-bytes 400M:
~12k system spans, a 420 MB trace.json of ~1.4M events); --callgrind uses smaller ones (200k instructions;
--executions 300 --kineto-target-bytes 80M), since the server runs under valgrind.

Warm: one server per binary; each case's first calls (model load, memoized order and counts built) are not
counted; then --rounds rounds, each calling every case once on every server, the servers' order alternating
from round to round, so a machine shared with other work slows every binary alike. Reported per case and
binary: the median wall time of a call, and the median CPU time the server spent on it (all its threads,
/proc/<pid>/task/*/schedstat), which other work on the machine disturbs less.
Cold: `neuronlens call trace-extract` (a new process: model read, order built, one page), the binaries
alternating, median of --cold-runs after one unmeasured run each.
--callgrind: instead, each binary's server runs under callgrind with instrumentation off; after the warm-up,
each case is called 3 times with instrumentation on and the instructions executed per call (Ir, every
thread) are reported: deterministic, whatever else the machine runs.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_bench import Server, needs_generating  # noqa: E402

# (instructions per layer, capture executions, trace.json size, start of a 20 µs instruction window with rows)
SIZES = {'full': (125000, 1000, '400M', 8000000), 'callgrind': (25000, 300, '80M', 2000000)}


def inputs(gen, work, size):
    per_layer, executions, kineto, _ = SIZES[size]
    export_dir = os.path.join(work, 'export-%dx8' % per_layer)
    export = os.path.join(export_dir, 'profile_nc0.json')
    if needs_generating(export, gen):
        subprocess.run([gen, '--out', export_dir, '--cores', '1', '--layers', '8', '--instructions-per-layer',
                        str(per_layer), '--quiet'], check=True)
    cap = os.path.join(work, 'capture-%d-%s' % (executions, kineto))
    if needs_generating(os.path.join(cap, 'expected.json'), gen):
        subprocess.run([gen, '--out', cap, '--capture', '--cores', '1', '--executions', str(executions),
                        '--kineto-target-bytes', kineto, '--quiet'], check=True)
    return export, cap


def warm_cases(export, cap, window):
    sysp = {'path': cap, 'profile': 'rank0/system', 'kind': 'system'}
    fw = {'path': cap, 'kind': 'framework'}
    dev = {'path': export}
    fw_window = 1767229202600000000  # 100 ms into the generated trace.json (unix ns), 1 ms wide
    return [
        ('instruction by duration (run_bench warm case)', dict(dev, kind='instruction', sort='duration')),
        ('instruction by time', dict(dev, kind='instruction')),
        ('instruction by time, page 2 (cursor)', dict(dev, kind='instruction', _page=2)),
        ('instruction engine tensor + opcode MAT*, by duration', dict(dev, engine='tensor', opcode='MAT*', sort='duration')),
        ('instruction 20 µs window, by duration (few rows: ranked)',
         dict(dev, start_ns=window, end_ns=window + 20000, sort='duration')),
        ('instruction window matching nothing (explained)', dict(dev, start_ns=1, end_ns=2, sort='duration')),
        ('instruction min_wait_ns 1, by wait', dict(dev, min_wait_ns=1, sort='wait')),
        ('dma by bytes', dict(dev, kind='dma', sort='bytes')),
        ('dma queue filter, by duration', dict(dev, kind='dma', engine='qSyncIO0', sort='duration')),
        ('semaphore by time', dict(dev, kind='semaphore')),
        ('system by duration', dict(sysp, sort='duration')),
        ('system engine host, by time', dict(sysp, engine='host')),
        ('framework by time', fw),
        ('framework by duration', dict(fw, sort='duration')),
        ('framework engine host + opcode aten::*, by duration', dict(fw, engine='host', opcode='aten::*', sort='duration')),
        ('framework 1 ms window, by duration', dict(fw, start_ns=fw_window, end_ns=fw_window + 1000000, sort='duration')),
    ]


def cpu_ns(server):
    """CPU time the server's threads have used, ns (/proc/<pid>/task/*/schedstat: time on a CPU)."""
    total = 0
    task_dir = '/proc/%d/task' % server.p.pid
    for tid in os.listdir(task_dir):
        try:
            with open(os.path.join(task_dir, tid, 'schedstat')) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def tool(server, args):
    r, size = server.call('tools/call', {'name': 'trace-extract', 'arguments': args})
    return r, size


def prepare(server, name, label, args):
    """The arguments of a case (`_page: 2` takes the first page's next_cursor), after its warm-up calls."""
    a = {k: v for k, v in args.items() if not k.startswith('_')}
    if args.get('_page') == 2:
        r, _ = tool(server, a)
        a['cursor'] = r['result']['structuredContent']['next_cursor']
    for _ in range(2):
        r, _ = tool(server, a)
        if r.get('result', {}).get('isError'):
            raise SystemExit('%s: %s: %s' % (name, label, r['result']['content'][0]['text']))
    return a


def run_warm(binaries, cases, rounds):
    servers = {name: Server(path) for name, path in binaries}
    prepared = {(name, label): prepare(servers[name], name, label, args) for name, _ in binaries for label, args in cases}
    times = {key: [] for key in prepared}
    cpu = {key: [] for key in prepared}
    sizes = {}
    for k in range(rounds):
        order = binaries if k % 2 == 0 else list(reversed(binaries))
        for label, _ in cases:
            for name, _ in order:
                c0, t0 = cpu_ns(servers[name]), time.perf_counter()
                _, sizes[(name, label)] = tool(servers[name], prepared[(name, label)])
                times[(name, label)].append(time.perf_counter() - t0)
                cpu[(name, label)].append((cpu_ns(servers[name]) - c0) / 1e9)
    for s in servers.values():
        s.close()
    return ({key: statistics.median(v) for key, v in times.items()}, {key: statistics.median(v) for key, v in cpu.items()},
            sizes)


def callgrind_server(path, out_dir):
    s = Server.__new__(Server)
    s.p = subprocess.Popen(['valgrind', '--tool=callgrind', '--instr-atstart=no',
                            '--callgrind-out-file=' + os.path.join(out_dir, 'cg.%p'), path, 'serve'],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    s.n = 0
    s.call('initialize', {'protocolVersion': '2025-11-25', 'capabilities': {},
                          'clientInfo': {'name': 'bench', 'version': '1'}})
    return s


def callgrind_ir(server, out_dir, args, calls):
    """Instructions the server executes per call of `args` (callgrind_control: zero, on, calls, off, dump)."""
    pid = str(server.p.pid)
    subprocess.run(['callgrind_control', '-z', pid], capture_output=True, check=True)
    subprocess.run(['callgrind_control', '-i', 'on', pid], capture_output=True, check=True)
    for _ in range(calls):
        tool(server, args)
    subprocess.run(['callgrind_control', '-i', 'off', pid], capture_output=True, check=True)
    before = set(glob.glob(os.path.join(out_dir, 'cg.%s.*' % pid)))
    subprocess.run(['callgrind_control', '-d', pid], capture_output=True, check=True)
    for _ in range(100):
        new = set(glob.glob(os.path.join(out_dir, 'cg.%s.*' % pid))) - before
        if new:
            break
        time.sleep(0.1)
    time.sleep(0.2)
    with open(new.pop()) as f:
        for line in f:
            if line.startswith('totals:'):
                return int(line.split()[1]) / calls
    raise SystemExit('no totals in the callgrind dump')


def run_callgrind(binaries, cases, calls=3):
    ir = {}
    for name, path in binaries:
        out_dir = tempfile.mkdtemp(prefix='nl-cg-')
        s = callgrind_server(path, out_dir)
        prepared = {label: prepare(s, name, label, args) for label, args in cases}
        for label, _ in cases:
            ir[(name, label)] = callgrind_ir(s, out_dir, prepared[label], calls)
        s.close()
        shutil.rmtree(out_dir, ignore_errors=True)
    return ir


def run_cold(binaries, cases, runs):
    out = {}
    for label, args in cases:
        walls = {name: [] for name, _ in binaries}
        for k in range(runs + 1):
            order = binaries if k % 2 == 0 else list(reversed(binaries))
            for name, path in order:
                t0 = time.perf_counter()
                r = subprocess.run([path, 'call', 'trace-extract', json.dumps(args)], capture_output=True)
                wall = time.perf_counter() - t0
                if r.returncode != 0:
                    raise SystemExit('%s: %s: %s' % (name, label, r.stderr.decode(errors='replace')[:200]))
                if k:
                    walls[name].append(wall)
        for name, _ in binaries:
            out[(name, label)] = statistics.median(walls[name])
    return out


def fmt(s):
    return '%.3f s' % s if s >= 0.1 else '%.2f ms' % (s * 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--binary', action='append', default=[], help='NAME=PATH; repeat for an A/B run')
    ap.add_argument('--work', default=os.path.join(tempfile.gettempdir(), 'nl-bench'))
    ap.add_argument('--rounds', type=int, default=41)
    ap.add_argument('--cold-runs', type=int, default=5)
    ap.add_argument('--no-cold', action='store_true')
    ap.add_argument('--callgrind', action='store_true', help='instructions per warm call under callgrind')
    args = ap.parse_args()
    gen = os.path.join(args.build, 'bench', 'nl-gen-profile')
    binaries = [tuple(b.split('=', 1)) for b in args.binary] or [('build', os.path.join(args.build, 'neuronlens'))]
    names = [n for n, _ in binaries]
    os.makedirs(args.work, exist_ok=True)
    size = 'callgrind' if args.callgrind else 'full'
    export, cap = inputs(gen, args.work, size)
    cases = warm_cases(export, cap, SIZES[size][3])
    if args.callgrind:
        ir = run_callgrind(binaries, cases)
        print('| case (%s) | %s |' % (os.path.basename(os.path.dirname(export)), ' | '.join('%s Ir/call' % n for n in names)))
        print('|---|' + '---|' * len(names))
        for label, _ in cases:
            print('| %s | %s |' % (label, ' | '.join('%.2f M' % (ir[(n, label)] / 1e6) for n in names)))
        return
    warm, cpu, sizes = run_warm(binaries, cases, args.rounds)
    cold_cases = [] if args.no_cold else [
        ('instruction by duration, cold (1M-instruction export)', {'path': export, 'sort': 'duration'}),
        ('framework by duration, cold (420 MB trace.json)', {'path': cap, 'kind': 'framework', 'sort': 'duration'})]
    cold = run_cold(binaries, cold_cases, args.cold_runs)
    print('| case | ' + ' | '.join('%s wall | %s CPU' % (n, n) for n in names) + ' | response |')
    print('|---|' + '---|---|' * len(names) + '---|')
    for label, _ in cases:
        print('| %s | %s | %d B |' % (label, ' | '.join('%s | %s' % (fmt(warm[(n, label)]), fmt(cpu[(n, label)]))
                                                          for n in names), sizes[(names[0], label)]))
    for label, _ in cold_cases:
        print('| %s | %s | |' % (label, ' | '.join('%s | ' % fmt(cold[(n, label)]) for n in names)))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""Independent reference for the memory-snapshot reader and summary, Python standard library only.

Usage: ref_memory_snapshot.py SNAPSHOT            print the summary of one snapshot as JSON
       ref_memory_snapshot.py --check DUMP_EXE     samples test: every $NL_SAMPLES_DIR/memory-snapshot/*.pickle
                                                   through DUMP_EXE (tests/samples/memory_snapshot_dump.c) and
                                                   through this script must print equal JSON (integers exact),
                                                   and the facts of samples/memory-snapshot/README.md must hold
       ref_memory_snapshot.py --compare DUMP_EXE FILE...   the same comparison on the given files
Exit 77 (meson: skipped) with the reason printed when the samples are absent.

It loads the file with pickle.load (the test controls the file) and shares no code with the C side. The
definitions are those written in analyzers/analyses/memory_summary.h, re-implemented here from that text;
the timeline is replayed the way torch/utils/viz/MemoryViz.js process_alloc_data does it (a list of
elements and an action list, each element added at its first action and removed at its second), not the
C side's running-delta method.
"""
import json
import os
import pickle
import subprocess
import sys

TOP = 10
OOMS_MAX = 64
OOM_SITES_MAX = 4
ACTIONS = ['alloc', 'free_requested', 'free_completed', 'segment_alloc', 'segment_free', 'segment_map',
           'segment_unmap', 'oom', 'snapshot']
OMIT_NAMES = ['unwind::unwind', 'CapturedTraceback::gather', 'gather_with_cpp', '_start', '__libc_start_main',
              'PyEval_', 'PyObject_', 'PyFunction_']
OMIT_FILES = ['core/boxing', '/Register', '/Redispatch', 'pythonrun.c', 'Modules/main.c', 'Objects/call.c',
              'Objects/methodobject.c', 'pycore_ceval.h', 'ceval.c', 'cpython/abstract.h']
FRAMEWORK_PATHS = ['/site-packages/', '/dist-packages/', '/lib/python', '<frozen', '/torch/']
PYTHON_EXT = ['.py', '.pyw']
# README facts: segments, blocks, total_size, allocated_size, device_traces lengths
FACTS = {
    'flexgen_fork_v2_0_layout.pickle': (176, 463, 11844714496, 11840159744, [1]),
    'verl_pending_free.pickle': (127, 638, 26189234176, 24916034560, [0]),
    'magma27_compile_context.pickle': (216, 455, 14180941824, 1377753600, [5163]),
    'sketchkv2_state_only.pickle': (259, 868, 17133731840, 16397578240, [1]),
    'silmont2000_mem_snapshot.pickle': (9, 20, 3781165056, 31719936, [97]),
}


def fkey(f):
    return (f.get('name', ''), f.get('filename', ''), f.get('line', 0))


def classify(name, filename):
    if any(p in name for p in OMIT_NAMES) or any(p in filename for p in OMIT_FILES):
        return 'omit'
    low = filename.replace('\\', '/').lower()
    if not (filename.startswith('<') or any(low.endswith(e) for e in PYTHON_EXT)):
        return 'native'
    if any(p in low for p in FRAMEWORK_PATHS):
        return 'fw'
    return 'user'


def site_of(stack):
    """(site frame key or None, user, via key or None) of a tuple of frame keys."""
    inside = py = bw = native = None
    for k in stack:
        c = classify(k[0], k[1])
        if c == 'omit':
            continue
        if c == 'user':
            return k, True, inside
        inside = k
        if c == 'fw' and py is None:
            py = k
        if c == 'native' and bw is None and 'Backward' in k[0]:
            bw = k
        if c == 'native' and native is None:
            native = k
    return (py or bw or native), False, None


def skey(k):
    return None if k is None else f'{k[1]}:{k[2]}:{k[0]}'


def sort_key(k):
    if k is None:
        return (b'', -1, b'')
    return (k[1].encode('utf-8', 'surrogatepass'), k[2], k[0].encode('utf-8', 'surrogatepass'))


def sites(elems):
    """elems: (size, stack, order) held at one point → the dump's site summary."""
    groups = {}
    for size, stack, order in elems:
        site, user, _ = site_of(stack)
        g = groups.setdefault(site, [0, 0, None])
        g[0] += size
        g[1] += 1
        if g[2] is None or size > g[2][0] or (size == g[2][0] and order < g[2][1]):
            g[2] = (size, order, stack)
    rows = []
    for site, (b, n, best) in groups.items():
        s2, user, via = site_of(best[2])
        rows.append((site, user, via, b, n))
    rows.sort(key=lambda r: (-r[3], -r[4], sort_key(r[0])))
    top = rows[:TOP]
    return {'top': [[skey(r[0]), r[1], skey(r[2]), r[3], r[4]] for r in top], 'total_sites': len(rows),
            'other_bytes': sum(r[3] for r in rows) - sum(r[3] for r in top),
            'other_count': sum(r[4] for r in rows) - sum(r[4] for r in top)}


def stack_of(frames):
    return tuple(fkey(f) for f in frames)


def block_info(seg):
    """The blocks of a segment with address, requested size and frames as the C reader defines them."""
    out = []
    addr = seg['address']
    for b in seg['blocks']:
        h0 = b['history'][0] if b.get('history') else None
        req = b['requested_size'] if 'requested_size' in b else (h0['real_size'] if h0 and 'real_size' in h0
                                                                 else b['size'])
        if 'frames' in b:
            frames = b['frames']
        else:
            frames = h0['frames'] if h0 and 'frames' in h0 else []
        out.append({'address': b.get('address', addr), 'size': b['size'], 'requested': req, 'state': b['state'],
                    'stack': stack_of(frames)})
        addr += b['size']
    return out


def pool_of(seg):
    t = seg.get('segment_type')
    return 'unknown' if t is None else t if t in ('large', 'small') else 'other'


def new_pool():
    return dict(segments=0, blocks=0, reserved=0, allocated=0, active=0, requested=0, inactive=0, pending_free=0,
                inactive_blocks=0, pending_free_blocks=0, allocated_blocks=0, block_allocated=0, block_requested=0,
                largest_inactive=0)


def add_pool(p, seg, blocks):
    p['segments'] += 1
    p['reserved'] += seg['total_size']
    p['allocated'] += seg.get('allocated_size', 0)
    p['active'] += seg.get('active_size', 0)
    p['requested'] += seg.get('requested_size', 0)
    for b in blocks:
        p['blocks'] += 1
        if b['state'] == 'active_allocated':
            p['allocated_blocks'] += 1
            p['block_allocated'] += b['size']
            p['block_requested'] += b['requested']
        elif b['state'] == 'active_pending_free':
            p['pending_free_blocks'] += 1
            p['pending_free'] += b['size']
        elif b['state'] == 'inactive':
            p['inactive_blocks'] += 1
            p['inactive'] += b['size']
            p['largest_inactive'] = max(p['largest_inactive'], b['size'])


def merge_pool(to, p):
    for k in to:
        if k == 'largest_inactive':
            to[k] = max(to[k], p[k])
        else:
            to[k] += p[k]


def replay(trace, dev_blocks, nblocks_before):
    """MemoryViz's process_alloc_data over one device, extended with the held sets the summary reports."""
    # annotate_snapshot: a free_completed right after a free_requested of the same addr merges into 'free'
    events = []
    for i, e in enumerate(trace):
        if e['action'] == 'free_completed' and events and events[-1][1]['action'] == 'free_requested' \
                and events[-1][1].get('addr') == e.get('addr'):
            j, prev, _ = events[-1]
            events[-1] = (j, dict(prev, action='free'), i)
            continue
        events.append((i, e, i))
    elements, actions, initially = [], [], []   # element: (size, stack, order, source row)
    addr_to_alloc = {}
    oom_points = []                              # (trace index, number of actions before it)
    for first_i, e, last_i in events:
        a = e['action']
        if a == 'alloc':
            elements.append((e['size'], stack_of(e.get('frames', [])), first_i))
            addr_to_alloc[e['addr']] = len(elements) - 1
            actions.append((len(elements) - 1, first_i))
        elif a in ('free', 'free_completed'):
            if e['addr'] in addr_to_alloc:
                actions.append((addr_to_alloc.pop(e['addr']), last_i))
            else:
                elements.append((e['size'], stack_of(e.get('frames', [])), first_i))
                initially.append(len(elements) - 1)
                actions.append((len(elements) - 1, last_i))
        elif a == 'oom':
            oom_points.append((first_i, len(actions)))
    for bi, b in dev_blocks:
        if b['state'] == 'active_allocated' and b['address'] not in addr_to_alloc:
            elements.append((b['requested'], b['stack'], nblocks_before + bi))
            initially.append(len(elements) - 1)

    def held_after(k):
        """Elements held after the first k actions."""
        live = set(initially)
        for el, _ in actions[:k]:
            live.symmetric_difference_update((el,))
        return [elements[x] for x in sorted(live)]

    total = sum(elements[x][0] for x in initially)
    start = total
    peak, peak_k, peak_row = total, 0, -1
    live = set(initially)
    totals_at = [total]
    for k, (el, row) in enumerate(actions):
        if el in live:
            live.remove(el)
            total -= elements[el][0]
        else:
            live.add(el)
            total += elements[el][0]
        totals_at.append(total)
        if total > peak:
            peak, peak_k, peak_row = total, k + 1, row
    return dict(start=start, end=total, peak=peak, peak_row=peak_row, held_peak=held_after(peak_k),
                ooms=[(i, totals_at[n], held_after(n)) for i, n in oom_points],
                frees_before=sum(1 for x in initially if elements[x][2] < nblocks_before),
                blocks_before=sum(1 for x in initially if elements[x][2] >= nblocks_before),
                allocs=sum(1 for e in trace if e['action'] == 'alloc'),
                frees=sum(1 for e in trace if e['action'] == 'free_completed'))


def summarize(snap):
    segs = snap['segments']
    traces = snap.get('device_traces', [])
    blocks_all = []
    seg_blocks = []
    for seg in segs:
        bl = block_info(seg)
        seg_blocks.append((seg, len(blocks_all), bl))
        blocks_all.extend(bl)
    # distinct frames and stacks, wherever the reader interns them
    frames, stacks = set(), set()

    def see(fl):
        st = stack_of(fl)
        frames.update(st)
        if st:
            stacks.add(st)
    for seg in segs:
        see(seg.get('frames', []))
        for b in seg['blocks']:
            see(b.get('frames', []))
            for h in b.get('history', []):
                see(h.get('frames', []))
    for t in traces:
        for e in t:
            see(e.get('frames', []))
            see(e.get('forward_frames', []))
    layout = 'v2_0' if any('history' in b or 'address' not in b for s in segs for b in s['blocks']) else 'current'
    lens = [len(t) for t in traces]
    history = 'trace' if any(n > 1 for n in lens) else 'state_only' if any(n == 1 for n in lens) else 'none'
    acts = {}
    for t in traces:
        for e in t:
            a = e['action'] if e['action'] in ACTIONS else 'other'
            acts[a] = acts.get(a, 0) + 1
    st = snap.get('allocator_settings')
    settings = None
    if st is not None:
        rd = st.get('roundup_power2_divisions', {})
        settings = {
            'expandable_segments': st['expandable_segments'] if isinstance(st.get('expandable_segments'), bool)
            else None,
            'max_split_size': st.get('max_split_size'),
            'garbage_collection_threshold': float(st['garbage_collection_threshold'])
            if 'garbage_collection_threshold' in st else None,
            'alloc_conf': st.get('PYTORCH_CUDA_ALLOC_CONF'),
            'roundup_nonzero': sum(1 for v in rd.values() if v) if isinstance(rd, dict) else 0,
        }
    ndev = max([len(traces)] + [s.get('device', 0) + 1 for s in segs])
    trace_len_total = sum(lens)
    devices = []
    for d in range(ndev):
        trace = traces[d] if d < len(traces) else []
        dsegs = [(s, b0, bl) for s, b0, bl in seg_blocks if s.get('device', 0) == d]
        if not trace and not dsegs:
            continue
        pools = {}
        for s, b0, bl in dsegs:
            add_pool(pools.setdefault(pool_of(s), new_pool()), s, bl)
        total = new_pool()
        for p in pools.values():
            merge_pool(total, p)
        largest = total['largest_inactive']
        dev = {'device': d, 'pools': pools, 'total': total, 'trace_entries': len(trace)}
        dacts = {}
        for e in trace:
            a = e['action'] if e['action'] in ACTIONS else 'other'
            dacts[a] = dacts.get(a, 0) + 1
        dev['actions'] = dacts
        times = [e['time_us'] for e in trace if 'time_us' in e]
        dev['first_time_us'] = min(times) if times else None
        dev['last_time_us'] = max(times) if times else None
        dev_blocks = [(b0 + i, b) for s, b0, bl in dsegs for i, b in enumerate(bl)]
        if trace:
            # orders: trace index for window elements, then every trace row, then the block index
            r = replay(trace, dev_blocks, trace_len_total)
            pk = {'source': 'trace', 'start': r['start'], 'end': r['end'], 'bytes': r['peak'], 'row': r['peak_row'],
                  'time_us': trace[r['peak_row']].get('time_us') if r['peak_row'] >= 0 else None,
                  'allocs': r['allocs'], 'frees': r['frees'], 'frees_before_window': r['frees_before'],
                  'blocks_before_window': r['blocks_before'], 'sites': sites(r['held_peak'])}
            reserved_end = total['reserved']
            ooms = []
            for k, (i, alloc_at, held) in enumerate(r['ooms'][:OOMS_MAX]):
                seg_after = 0
                for e in trace[i:]:
                    if e['action'] in ('segment_alloc', 'segment_map'):
                        seg_after += e['size']
                    elif e['action'] in ('segment_free', 'segment_unmap'):
                        seg_after -= e['size']
                e = trace[i]
                o = {'row': i, 'time_us': e.get('time_us'), 'requested': e['size'], 'device_free': e['device_free'],
                     'allocated': alloc_at, 'reserved': reserved_end - seg_after,
                     'fits_largest_free': largest >= e['size']}
                if k < OOM_SITES_MAX:
                    o['sites'] = sites(held)
                ooms.append(o)
            dev['ooms'] = ooms
            dev['oom_total'] = len(r['ooms'])
        else:
            held = [(b['requested'], b['stack'], bi) for bi, b in dev_blocks if b['state'] == 'active_allocated']
            nbytes = sum(h[0] for h in held)
            pk = {'source': 'at_snapshot', 'start': nbytes, 'end': nbytes, 'bytes': nbytes, 'row': -1, 'time_us': None,
                  'allocs': 0, 'frees': 0, 'frees_before_window': 0, 'blocks_before_window': len(held),
                  'sites': sites(held)}
            dev['ooms'] = []
            dev['oom_total'] = 0
        dev['peak'] = pk
        devices.append(dev)
    return {
        'layout': layout, 'history': history, 'protocol': None,
        'segments': len(segs), 'blocks': len(blocks_all),
        'history_entries': sum(len(b.get('history', [])) for s in segs for b in s['blocks']),
        'frames': len(frames), 'stacks': len(stacks),
        'totals': {'total_size': sum(s['total_size'] for s in segs),
                   'allocated_size': sum(s.get('allocated_size', 0) for s in segs),
                   'active_size': sum(s.get('active_size', 0) for s in segs),
                   'requested_size': sum(s.get('requested_size', 0) for s in segs)},
        'trace_devices': len(traces), 'trace_entries': sum(lens), 'actions': acts,
        'external_annotations': len(snap['external_annotations']) if 'external_annotations' in snap else None,
        'settings': settings, 'devices': devices,
    }


def protocol_of(data):
    return data[1] if len(data) > 1 and data[0] == 0x80 else 0


def reference(path):
    with open(path, 'rb') as f:
        data = f.read()
    out = summarize(pickle.loads(data))
    out['protocol'] = protocol_of(data)
    return out


def diff(a, b, path=''):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f'{path}.{k}: only in {"C" if k in a else "Python"}'
            d = diff(a[k], b[k], f'{path}.{k}')
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f'{path}: {len(a)} items vs {len(b)}'
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f'{path}[{i}]')
            if d:
                return d
        return None
    if a != b or type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return f'{path}: C {a!r} vs Python {b!r}'
    return None


def compare(exe, paths, facts=None):
    fails = 0
    for path in paths:
        p = subprocess.run([exe, path], capture_output=True, text=True, errors='surrogateescape')
        if p.returncode != 0:
            print(f'FAIL {path}: {exe} exit {p.returncode}: {p.stderr.strip()}')
            fails += 1
            continue
        got, want = json.loads(p.stdout), reference(path)
        d = diff(got, want)
        name = os.path.basename(path)
        if d:
            print(f'FAIL {name}: {d}')
            fails += 1
            continue
        if facts and name in facts:
            nseg, nblk, total, alloc, lens = facts[name]
            if (got['segments'], got['blocks'], got['totals']['total_size'], got['totals']['allocated_size'],
                    got['trace_entries']) != (nseg, nblk, total, alloc, sum(lens)) or got['trace_devices'] != len(lens):
                print(f'FAIL {name}: README facts differ')
                fails += 1
                continue
        dv = got['devices'][0] if got['devices'] else {}
        pk = dv.get('peak', {})
        print(f'ok {name}: {got["layout"]}, history {got["history"]}, {got["segments"]} segments, {got["blocks"]} '
              f'blocks, {got["trace_entries"]} entries, peak {pk.get("bytes")} B at row {pk.get("row")} '
              f'({pk.get("source")}), {got["frames"]} frames, {got["stacks"]} stacks')
    return fails


def main():
    if len(sys.argv) == 2 and not sys.argv[1].startswith('--'):
        print(json.dumps(reference(sys.argv[1]), indent=1, sort_keys=True))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == '--compare':
        return 1 if compare(sys.argv[2], sys.argv[3:]) else 0
    if len(sys.argv) != 3 or sys.argv[1] != '--check':
        print(__doc__)
        return 2
    d = os.path.join(os.environ.get('NL_SAMPLES_DIR', ''), 'memory-snapshot')
    if not os.path.isdir(d):
        print(f'skip: {d} is absent (the real memory snapshots are not in this checkout)')
        return 77
    paths = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.pickle'))
    if not paths:
        print(f'skip: no .pickle in {d}')
        return 77
    fails = compare(sys.argv[2], paths, FACTS)
    missing = set(FACTS) - {os.path.basename(p) for p in paths}
    for m in sorted(missing):
        print(f'FAIL {m}: listed in the README facts but absent')
    return 1 if fails or missing else 0


if __name__ == '__main__':
    sys.exit(main())

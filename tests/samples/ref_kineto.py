#!/usr/bin/python3
"""Independent reference for the Kineto reader and the framework summary, Python standard library only.

Usage: ref_kineto.py TRACE                  print the aggregates of one trace.json(.gz) as JSON
       ref_kineto.py --check DUMP_EXE       samples test: every $NL_SAMPLES_DIR/kineto/*.json.gz through
                                            DUMP_EXE (tests/samples/kineto_dump.c) and through this script
                                            must print equal aggregates (exactly: integers only); also
                                            asserts the counts of samples/README.md, reads each file again
                                            with 4093-byte reads, and runs `neuronlens call summary` on it
                                            (numbers and the summary tool's outputSchema).
Exit 77 (meson: skipped) with the reason printed when the samples are absent.

It loads the whole file with gzip + json.load (parse_float=Decimal, so µs convert to ns exactly) and shares
no code with the C side. The definitions it implements are written out in
analyzers/analyses/framework_summary.h and analyzers/model/framework_model.c (device-or-host rules);
they are re-implemented here from that text.
"""
import bisect
import decimal
import gzip
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

CTX = decimal.Context(prec=2000, Emax=10 ** 7, Emin=-10 ** 7)
NUM_RE = re.compile(r'-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z')
DIGITS_RE = re.compile(r'[0-9]{1,20}\Z')
SMALL_INT_RE = re.compile(r'-?[0-9]{1,18}\Z')
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
NAME_MAX = 64 << 10

DEVICE_ONLY = {'kernel', 'gpu_memcpy', 'gpu_memset', 'gpu_user_annotation', 'mtia_ccp_events', 'privateuse1_driver'}
HOST_ONLY = {'cpu_op', 'user_annotation', 'python_function', 'cpu_instant_event', 'cuda_runtime', 'cuda_driver',
             'xpu_runtime', 'privateuse1_runtime'}
DEVICE_WORDS = ['neuroncore', 'neuron', 'privateuse1', 'gpu', 'mtia', 'npu', 'xpu', 'hpu', 'tpu', 'device']
HOST_COPY_NAMES = {'aten::copy_', 'aten::_to_copy', 'aten::to', 'aten::_copy_from', 'aten::_copy_from_and_resize'}
COPY_KINDS = ['host_to_device', 'device_to_host', 'device_to_device', 'host_to_host', 'peer_to_peer', 'other']
COPY_PATTERNS = [('HtoD', 'HOST_TO_DEVICE'), ('DtoH', 'DEVICE_TO_HOST'), ('DtoD', 'DEVICE_TO_DEVICE'),
                 ('HtoH', 'HOST_TO_HOST'), ('PtoP', 'PEER_TO_PEER')]


# ---- reading --------------------------------------------------------------------------------------------

def load(path):
    with open(path, 'rb') as f:
        magic = f.read(2)
    opener = gzip.open if magic == b'\x1f\x8b' else open
    with opener(path, 'rb') as f:
        return json.load(f, parse_float=Decimal)


def to_ns(v):
    """µs (int, Decimal or numeric string) → int ns, rounded half to even; None when unusable."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        d = Decimal(v)
    elif isinstance(v, Decimal):
        d = v
    elif isinstance(v, str) and NUM_RE.match(v):
        d = Decimal(v)
    else:
        return None
    try:
        ns = int(CTX.multiply(d, Decimal(1000)).to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=CTX))
    except (decimal.Overflow, decimal.InvalidOperation):
        return None
    return ns if INT64_MIN <= ns <= INT64_MAX else None


def id_key(v):
    """An id as ('n', int) when it is a uint64 number or digit string, ('t', text) otherwise; None when absent."""
    if v is None or isinstance(v, (bool, dict, list)):
        return None
    if isinstance(v, int):
        return ('n', v) if 0 <= v < (1 << 64) else ('t', str(v))
    if isinstance(v, Decimal):
        return ('t', str(v))
    if isinstance(v, str):
        if DIGITS_RE.match(v) and int(v) < (1 << 64):
            return ('n', int(v))
        return ('t', v)
    return None


def canon(v):
    """Canonical pid/tid text."""
    if v is None or isinstance(v, (bool, dict, list)):
        return ''
    if isinstance(v, (int, Decimal)):
        return str(v)
    return v if isinstance(v, str) else ''


def uint(v):
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < (1 << 64) else None


def events_of(doc):
    if isinstance(doc, list):
        return doc, 'array', {}
    return doc['traceEvents'], 'object', doc


def read_rows(path):
    doc = load(path)
    raw, layout, top = events_of(doc)
    rows = []
    for e in raw:
        if not isinstance(e, dict) or not isinstance(e.get('ph'), str):
            continue
        args = e.get('args') if isinstance(e.get('args'), dict) else {}
        name = e.get('name') if isinstance(e.get('name'), str) else ''
        if len(name.encode('utf-8')) > NAME_MAX:
            name = name.encode('utf-8')[:NAME_MAX].decode('utf-8', 'ignore')
        ph = e['ph']
        if ph == 'M':
            an, al = args.get('name'), args.get('labels')
            detail = an if isinstance(an, str) and an else (al if isinstance(al, str) else '')
        else:
            detail = args.get('direction') if isinstance(args.get('direction'), str) else ''
        nbytes = None
        for k in ('bytes', 'size', 'mem size'):
            if uint(args.get(k)) is not None:
                nbytes = args[k]
                break
        rows.append({
            'ph': ph, 'name': name, 'cat': e.get('cat') if isinstance(e.get('cat'), str) else '',
            'pid': canon(e.get('pid')), 'tid': canon(e.get('tid')),
            'ts': to_ns(e.get('ts')), 'dur': to_ns(e.get('dur')),
            'corr': id_key(args.get('correlation')), 'ext': id_key(args.get('External id')),
            'flow': id_key(e.get('id')), 'bytes': nbytes, 'detail': detail,
        })
    return rows, layout, top


# ---- processes ------------------------------------------------------------------------------------------

def device_word(s):
    low = s.lower()
    for w in DEVICE_WORDS:
        if low.startswith(w):
            rest = s[len(w):len(w) + 1]
            if rest == '' or rest in ' :#' or rest.isdigit() and rest in '0123456789':
                return True
    return False


def classify_processes(rows, top):
    order, cats, pname, plabels = [], {}, {}, {}
    for r in rows:
        p = r['pid']
        if p not in cats:
            order.append(p)
            cats[p] = set()
        cats[p].add(r['cat'])
        if r['ph'] == 'M' and r['detail']:
            if r['name'] == 'process_name':
                pname.setdefault(p, r['detail'])
            elif r['name'] == 'process_labels':
                plabels.setdefault(p, r['detail'])
    dev_ids = []
    props = top.get('deviceProperties') if isinstance(top.get('deviceProperties'), list) else []
    for d in props[:1024]:
        if isinstance(d, dict) and isinstance(d.get('id'), int) and not isinstance(d.get('id'), bool) \
                and INT64_MIN <= d['id'] <= INT64_MAX:
            dev_ids.append(d['id'])
    device = {}
    for p in order:
        host_cats = bool(cats[p] & HOST_ONLY)
        numeric = bool(SMALL_INT_RE.match(p))
        if not numeric:
            device[p] = False
        elif cats[p] & DEVICE_ONLY:
            device[p] = True
        elif not host_cats and (device_word(pname.get(p, '')) or device_word(plabels.get(p, ''))):
            device[p] = True
        elif not host_cats and int(p) in dev_ids:
            device[p] = True
        else:
            device[p] = False
    return order, device, pname, plabels


def cat_is_launch(cat):
    return cat.endswith('_runtime') or cat.endswith('_driver') or cat == 'cuda_sync'


def span_kind(device, cat):
    if device:
        if cat in ('gpu_user_annotation', 'cuda_sync', 'Trace') or (cat_is_launch(cat) and cat not in DEVICE_ONLY):
            return 'devother'
        return 'dev'
    return 'prof' if cat == 'Trace' else 'host'


# ---- the aggregates --------------------------------------------------------------------------------------

def union_merged(intervals):
    """Merged, sorted list of non-empty [start, end) intervals."""
    out = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def busy_stats(intervals):
    merged = union_merged(intervals)
    gaps = [merged[i][0] - merged[i - 1][1] for i in range(1, len(merged))]
    return merged, sum(e - s for s, e in merged), len(gaps), sum(gaps), max(gaps) if gaps else 0


def nearest_rank(sorted_values, q):
    n = len(sorted_values)
    idx = -(-q * n // 100)
    return sorted_values[max(idx, 1) - 1]


def sort_ops(groups, with_self):
    def key(item):
        (name, cat), g = item
        return (-g[2] if with_self else 0, -g[1], name.encode('utf-8'), cat.encode('utf-8'))
    out = []
    for (name, cat), g in sorted(groups.items(), key=key):
        out.append([name, cat, g[0], g[1]] + ([g[2]] if with_self else []))
    return out


def aggregate(path):
    rows, layout, top = read_rows(path)
    order, device, pname, plabels = classify_processes(rows, top)
    n = len(rows)
    ph_count, cat_count = {}, {}
    kind = [None] * n
    end = [None] * n
    meta = meta_zero = untimed = flows_s = flows_t = flows_f = instants = 0
    window = None
    for i, r in enumerate(rows):
        ph_count[r['ph']] = ph_count.get(r['ph'], 0) + 1
        cat_count[r['cat']] = cat_count.get(r['cat'], 0) + 1
        ts = r['ts']
        end[i] = ts + max(r['dur'], 0) if ts is not None and r['dur'] is not None else ts
        ph, k = r['ph'], 'other'
        if ph == 'M':
            k = 'meta'
            meta += 1
            meta_zero += ts == 0
        elif ph in ('X', 'B', 'E'):
            if ts is None:
                untimed += 1
            elif ph == 'X':
                k = span_kind(device[r['pid']], r['cat'])
            else:
                k = ph
        elif ph == 's':
            flows_s += 1
            k = 's' if ts is not None else 'other'
        elif ph == 't':
            flows_t += 1
        elif ph == 'f':
            flows_f += 1
            k = 'f' if ts is not None else 'other'
        elif ph in ('i', 'I'):
            instants += 1
        if k != 'meta' and ts is not None:
            window = [ts, end[i]] if window is None else [min(window[0], ts), max(window[1], end[i])]
        kind[i] = k

    # B/E pairs per thread, in (ts, file order)
    be_pairs = be_open = be_unmatched = 0
    by_thread = {}
    for i, r in enumerate(rows):
        if kind[i] in ('B', 'E'):
            by_thread.setdefault((r['pid'], r['tid']), []).append(i)
    for lst in by_thread.values():
        stack = []
        for i in sorted(lst, key=lambda j: (rows[j]['ts'], j)):
            if kind[i] == 'E':
                if not stack:
                    be_unmatched += 1
                    continue
                b = stack.pop()
                end[b] = rows[i]['ts']
                kind[b] = span_kind(device[rows[b]['pid']], rows[b]['cat'])
                be_pairs += 1
            else:
                stack.append(i)
        for b in stack:
            kind[b] = 'other'
        be_open += len(stack)

    # the walk: spans and probes per thread
    threads = {}
    for i, r in enumerate(rows):
        if kind[i] in ('host', 'dev', 'devother', 's', 'f'):
            threads.setdefault((r['pid'], r['tid']), []).append(i)
    parent, self_ns, bind = {}, {}, {}
    for lst in threads.values():
        def walk_key(j):
            probe = kind[j] in ('s', 'f')
            return (rows[j]['ts'], 1 if probe else 0, -(rows[j]['ts'] if probe else end[j]), j)
        seq = sorted(lst, key=walk_key)
        stack = []
        for pos, i in enumerate(seq):
            ts = rows[i]['ts']
            if kind[i] in ('s', 'f'):
                found = None
                for j in reversed(stack):
                    if end[j] >= ts:
                        found = j
                        break
                if found is None and kind[i] == 'f':
                    found = next((j for j in seq[pos + 1:] if kind[j] not in ('s', 'f')), None)
                bind[i] = found
                continue
            while stack and end[stack[-1]] <= ts:
                stack.pop()
            p = stack[-1] if stack else None
            parent[i] = p
            self_ns[i] = end[i] - ts
            if p is not None:
                self_ns[p] -= min(end[i], end[p]) - ts
            stack.append(i)

    # host ops, compiled regions, host copies, steps
    host_ops, host_copies, host_threads = {}, {}, set()
    host_spans = compiled = compiled_ns = 0
    steps = []
    for i, r in enumerate(rows):
        if kind[i] != 'host':
            continue
        host_spans += 1
        host_threads.add((r['pid'], r['tid']))
        length = end[i] - r['ts']
        g = host_ops.setdefault((r['name'], r['cat']), [0, 0, 0])
        g[0] += 1
        g[1] += length
        g[2] += self_ns[i]
        if r['name'].startswith('Torch-Compiled Region'):
            compiled += 1
            compiled_ns += length
        if r['name'] in HOST_COPY_NAMES:
            g = host_copies.setdefault((r['name'], r['cat']), [0, 0, 0])
            g[0] += 1
            g[1] += length
            g[2] += self_ns[i]
        if r['name'].startswith('ProfilerStep#'):
            digits = r['name'][13:]
            num = int(digits) if re.fullmatch(r'[0-9]{1,18}', digits) else -1
            steps.append([r['name'], num, r['ts'], length])

    # links
    corr, ext, flow_s = {}, {}, {}
    for i, r in enumerate(rows):  # file order: the first one wins
        if kind[i] == 'host':
            if r['corr'] is not None:
                corr.setdefault(r['corr'], i)
            if r['ext'] is not None and not cat_is_launch(r['cat']):
                ext.setdefault(r['ext'], i)
        elif kind[i] == 's' and not device[r['pid']] and r['flow'] is not None:
            flow_s.setdefault(r['flow'], i)
    lat, flow_link = [], {}
    for i, r in enumerate(rows):  # file order: the first f per device span wins
        if kind[i] != 'f' or not device[r['pid']] or r['flow'] not in flow_s:
            continue
        s = flow_s[r['flow']]
        lat.append(r['ts'] - rows[s]['ts'])
        d, launch = bind.get(i), bind.get(s)
        if d is not None and launch is not None and kind[d] == 'dev' and kind[launch] == 'host':
            flow_link.setdefault(d, launch)
    basis = 'flows' if lat else 'none'

    def op_of(launch):
        j = launch
        while j is not None:
            if not cat_is_launch(rows[j]['cat']):
                return j
            j = parent[j]
        return launch

    kernels, dev_ops, per_dev, per_stream = {}, {}, {}, {}
    links = {'correlation': 0, 'flow': 0, 'external_id': 0, 'unlinked': 0, 'unlinked_ns': 0}
    copies = {k: [0, 0, 0, 0] for k in COPY_KINDS}
    memsets = [0, 0, 0, 0]
    dev_spans = dev_other = dev_sum = 0
    dev_first = dev_last = None
    corr_lat, all_dev = [], []
    for i, r in enumerate(rows):
        if kind[i] == 'devother':
            dev_other += 1
        if kind[i] != 'dev':
            continue
        ts, length = r['ts'], end[i] - r['ts']
        dev_spans += 1
        dev_sum += length
        dev_first = ts if dev_first is None else min(dev_first, ts)
        dev_last = end[i] if dev_last is None else max(dev_last, end[i])
        all_dev.append((ts, end[i]))
        per_dev.setdefault(r['pid'], []).append((ts, end[i]))
        per_stream.setdefault((r['pid'], r['tid']), []).append((ts, end[i]))
        g = kernels.setdefault((r['name'], r['cat']), [0, 0, 0])
        g[0] += 1
        g[1] += length
        ck = None
        for text in (r['name'], r['detail']):
            for k, (short, long_) in enumerate(COPY_PATTERNS):
                if short in text or long_ in text:
                    ck = k
                    break
            if ck is not None:
                break
        if ck is None and r['cat'] == 'gpu_memcpy':
            ck = 5
        target = copies[COPY_KINDS[ck]] if ck is not None else memsets if r['cat'] == 'gpu_memset' else None
        if target is not None:
            target[0] += 1
            target[1] += length
            if r['bytes'] is not None:
                target[2] += r['bytes']
                target[3] += 1
        op = None
        if r['corr'] is not None and r['corr'] in corr:
            launch = corr[r['corr']]
            links['correlation'] += 1
            corr_lat.append(ts - rows[launch]['ts'])
        elif i in flow_link:
            launch = flow_link[i]
            links['flow'] += 1
        elif r['ext'] is not None and r['ext'] in ext:
            op = ext[r['ext']]
            links['external_id'] += 1
        else:
            links['unlinked'] += 1
            links['unlinked_ns'] += length
            continue
        if op is None:
            op = op_of(launch)
        g = dev_ops.setdefault((rows[op]['name'], rows[op]['cat']), [0, 0, 0])
        g[0] += 1
        g[1] += length
    if not lat and corr_lat:
        lat, basis = corr_lat, 'correlation'
    lat.sort()
    latency = {'basis': basis, 'pairs': len(lat), 'negative': sum(1 for v in lat if v < 0),
               'min': lat[0] if lat else 0, 'median': nearest_rank(lat, 50) if lat else 0,
               'p90': nearest_rank(lat, 90) if lat else 0, 'max': lat[-1] if lat else 0}

    merged_all, busy_all, _, _, _ = busy_stats(all_dev)

    def busy_rows(groups, streams):
        out = []
        for key, iv in groups.items():
            _, busy, ngaps, gap_total, gap_max = busy_stats(iv)
            label = list(key) if streams else [key]
            out.append(label + [len(iv), sum(e - s for s, e in iv), busy, ngaps, gap_total, gap_max])
        out.sort(key=lambda x: (-x[3 if streams else 2], x[0].encode('utf-8'),
                                (x[1] if streams else '').encode('utf-8')))
        return out

    ends = [e for _, e in merged_all]

    def overlap(a, b):
        total = 0
        for i in range(bisect.bisect_right(ends, a), len(merged_all)):
            s, e = merged_all[i]
            if s >= b:
                break
            total += max(0, min(e, b) - max(s, a))
        return total

    for s in steps:
        s.append(overlap(s[2], s[2] + s[3]))
    steps.sort(key=lambda s: (s[2], -s[3], s[1]))
    return {
        'events': n, 'layout': layout, 'partial': False,
        'ph': ph_count, 'cat': cat_count, 'window': window, 'meta': [meta, meta_zero],
        'processes': {p: 'device' if device[p] else 'host' for p in order},
        'host': {'spans': host_spans, 'threads': len(host_threads), 'ops': sort_ops(host_ops, True)},
        'device': {'spans': dev_spans, 'other_spans': dev_other, 'sum_ns': dev_sum, 'busy_ns': busy_all,
                   'first_ns': dev_first or 0, 'last_ns': dev_last or 0,
                   'per_device': busy_rows(per_dev, False), 'per_stream': busy_rows(per_stream, True),
                   'kernels': sort_ops(kernels, False), 'ops': sort_ops(dev_ops, False), 'links': links},
        'steps': steps, 'compiled_regions': [compiled, compiled_ns],
        'copies': copies, 'memsets': memsets, 'host_copy_ops': sort_ops(host_copies, True),
        'flows': [flows_s, flows_t, flows_f], 'instants': instants, 'latency': latency,
        'be': [be_pairs, be_open, be_unmatched], 'untimed': untimed,
    }


# ---- the samples check -----------------------------------------------------------------------------------

# samples/README.md, kineto/ table: events, ph counts, cat counts ("" = no cat).
README = {
    'cpu_only_rank34.pt.trace.json.gz': (30, {'X': 16, 'M': 12, 'i': 2},
                                         {'user_annotation': 11, 'cpu_op': 4, 'Trace': 1, '': 14}),
    'alexnet_cuda_trace.json.gz': (1408, {'X': 868, 'f': 345, 's': 155, 'M': 38, 'i': 2},
                                   {'ac2g': 500, 'cuda_runtime': 361, 'cpu_op': 359, 'kernel': 79, 'cuda_sync': 41,
                                    'gpu_memcpy': 16, 'user_annotation': 8, 'gpu_memset': 3, 'Trace': 1, '': 40}),
    'mtia_inference_rank_0.json.gz': (16158, {'X': 14179, 'f': 1166, 's': 635, 'M': 176, 'i': 2},
                                      {'cpu_op': 10346, 'ac2g': 1801, 'user_annotation': 1696,
                                       'mtia_ccp_events': 1313, 'mtia_runtime': 823, 'Trace': 1, '': 178}),
    'compare_base.json.gz': (33, {'X': 33}, {'cpu_op': 6, 'gpu_memcpy': 6, 'kernel': 6, 'gpu_memset': 6,
                                             'cuda_runtime': 5, 'user_annotation': 4}),
    'compare_test.json.gz': (34, {'X': 34}, {'cpu_op': 9, 'gpu_memcpy': 6, 'gpu_memset': 6, 'kernel': 5,
                                             'cuda_runtime': 5, 'user_annotation': 3}),
}


def diff(c, py, path, out):
    if isinstance(c, dict) and isinstance(py, dict):
        for k in sorted(set(c) | set(py)):
            if k not in c or k not in py:
                out.append('%s.%s: only in %s' % (path, k, 'Python' if k not in c else 'C'))
            else:
                diff(c[k], py[k], '%s.%s' % (path, k), out)
    elif isinstance(c, list) and isinstance(py, list):
        if len(c) != len(py):
            out.append('%s: C has %d items, Python %d' % (path, len(c), len(py)))
        for i, (a, b) in enumerate(zip(c, py)):
            diff(a, b, '%s[%d]' % (path, i), out)
    elif c != py or type(c) is not type(py):
        out.append('%s: C %r != Python %r' % (path, c, py))


def run_json(argv, env=None):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False, env=env)
    if p.returncode != 0:
        raise AssertionError('%s failed (%d): %s' % (' '.join(argv), p.returncode, p.stderr.decode(errors='replace')))
    return json.loads(p.stdout)


def output_schema():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e'))
    from mcp_session import Session, schema_errors  # noqa: E402
    with Session() as s:
        s.initialize()
        tools = {t['name']: t for t in s.call('tools/list', {})['result']['tools']}
    return tools['summary']['outputSchema'], schema_errors


def check_tool(binary, path, ref, schema, schema_errors, problems):
    name = os.path.basename(path)
    out = run_json([binary, 'call', 'summary', json.dumps({'path': path})])
    problems += ['%s(tool) schema: %s' % (name, e) for e in schema_errors(schema, out)]
    want = {
        'status': 'complete', 'events': ref['events'],
        'busy': ref['device']['busy_ns'],
        'top_self': [[o[0], o[1], o[4]] for o in ref['host']['ops'][:10]],
        'top_device': [[o[0], o[1], o[3]] for o in ref['device']['ops'][:10]],
    }
    got = {
        'status': out.get('status'), 'events': out.get('events', {}).get('total'),
        'busy': out.get('device', {}).get('busy_ns'),
        'top_self': [[o['name'], o['category'], o['self_ns']] for o in out.get('top_ops_by_cpu_self_time', [])],
        'top_device': [[o['name'], o['category'], o['device_ns']] for o in out.get('top_ops_by_device_time', [])],
    }
    for key in ('top_self', 'top_device'):  # a long name is shown cut, with "…", name_truncated and name_bytes
        for g, w in zip(got[key], want[key]):
            if g[0] != w[0] and g[0].endswith('\u2026') and w[0].startswith(g[0][:-1]):
                g[0] = w[0]
    diff(got, want, name + '(tool)', problems)


def check_tool_bad_input(binary, folder, schema, schema_errors, problems):
    """A cut-off .json.gz gives a partial result labelled so; a traceEvents that is not a list abstains."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        data = open(os.path.join(folder, 'mtia_inference_rank_0.json.gz'), 'rb').read()
        cut = os.path.join(tmp, 'cut.json.gz')
        with open(cut, 'wb') as f:
            f.write(data[:len(data) * 6 // 10])
        out = run_json([binary, 'call', 'summary', json.dumps({'path': cut})])
        problems += ['cut.json.gz(tool) schema: %s' % e for e in schema_errors(schema, out)]
        codes = [q.get('code') for q in out.get('data_quality', [])]
        if out.get('status') != 'partial' or out.get('partial') is not True or 'partial_trace' not in codes \
                or not 0 < out.get('events', {}).get('total', 0) < 16158:
            problems.append('cut.json.gz(tool): expected a partial result, got status %r partial %r codes %r' % (
                out.get('status'), out.get('partial'), codes))
        bad = os.path.join(tmp, 'bad.json')
        with open(bad, 'w') as f:
            f.write('{"traceEvents": 5}')
        out = run_json([binary, 'call', 'summary', json.dumps({'path': bad})])
        problems += ['bad.json(tool) schema: %s' % e for e in schema_errors(schema, out)]
        if out.get('status') != 'abstained' or 'traceEvents is a number' not in out.get('abstained', {}).get('reason', ''):
            problems.append('bad.json(tool): expected an abstention naming traceEvents, got %r' % (out,))
    print('tool on a cut-off .json.gz and on a non-trace: %s' % ('ok' if not problems else 'problems'))


def check(dump):
    root = os.environ.get('NL_SAMPLES_DIR', '')
    folder = os.path.join(root, 'kineto')
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith('.json.gz')) \
        if root and os.path.isdir(folder) else []
    if not files:
        print('skipping: no Kineto traces under NL_SAMPLES_DIR=%r (expected %s/*.json.gz)' % (root, folder))
        return 77
    binary = os.environ.get('NEURONLENS')
    schema, schema_errors = output_schema() if binary else (None, None)
    problems = []
    for path in files:
        name = os.path.basename(path)
        before = len(problems)
        ref = aggregate(path)
        c = run_json([dump, path])
        diff(c, ref, name, problems)
        diff(run_json([dump, '--read-size', '4093', path]), c, name + '(4093-byte reads)', problems)
        if name in README:
            events, ph, cat = README[name]
            diff({'events': c['events'], 'ph': c['ph'], 'cat': c['cat']}, {'events': events, 'ph': ph, 'cat': cat},
                 name + '(README)', problems)
        if binary:
            check_tool(binary, path, ref, schema, schema_errors, problems)
        d = ref['device']
        print('%s: %d events, %d host spans, %d device spans, busy %d ns, links %s, latency %s: %s' % (
            name, ref['events'], ref['host']['spans'], d['spans'], d['busy_ns'], d['links'], ref['latency']['basis'],
            'ok' if len(problems) == before else '%d differences' % (len(problems) - before)))
    if binary:
        check_tool_bad_input(binary, folder, schema, schema_errors, problems)
    for p in problems:
        print('DIFF ' + p[:400])
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[1] == '--check':
        return check(argv[2])
    if len(argv) == 2 and not argv[1].startswith('-'):
        json.dump(aggregate(argv[1]), sys.stdout, ensure_ascii=True, separators=(',', ':'))
        print()
        return 0
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))

"""Independent reference for kernel-attribution and trace-extract (Python stdlib only).

Reads a full JSON export with the json module and computes, without sharing any code with neuronlens, the
numbers the tools report: groups per opcode/engine/layer/hlo, merged busy time per engine, the union of the
export's active_time rows, source coverage, DMA packet size classes, the largest idle gaps, and the full
filtered, sorted row list of a trace-extract query. Conventions follow formats.md §4 and §11.
"""
import fnmatch
import json

ENGINES = ['tensor', 'vector', 'scalar', 'gpsimd', 'sync']
SEMAPHORE = 'EVENT_SEMAPHORE'


def load(path):
    with open(path) as f:
        return json.load(f)


def source_of(i):
    """nki_source_location, else bir_debug_info_source_location, else hlo_attrs source_file:source_line."""
    for key in ('nki_source_location', 'bir_debug_info_source_location'):
        if i.get(key):
            return i[key]
    attrs = i.get('hlo_attrs') or ''
    if attrs:
        try:
            for a in json.loads(attrs):
                if a.get('source_file') and str(a.get('source_line', '0')) != '0':
                    return '%s:%s' % (a['source_file'], a['source_line'])
        except ValueError:
            pass
    return ''


def union(intervals):
    """Total length and piece count of the union of [start, end) intervals (empty ones cover nothing)."""
    total, pieces, cur = 0, 0, None
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
            continue
        if cur:
            total += cur[1] - cur[0]
        cur = [s, e]
        pieces += 1
    return total + (cur[1] - cur[0] if cur else 0), pieces


def groups(d, key):
    """{key: {count, duration_ns, evt_wait_ns, hbm}} over every instruction."""
    out = {}
    for i in d['instruction']:
        k = key(i)
        g = out.setdefault(k, {'count': 0, 'duration_ns': 0, 'evt_wait_ns': 0, 'hbm': 0})
        g['count'] += 1
        g['duration_ns'] += i['duration']
        g['evt_wait_ns'] += i.get('evt_wait_time', 0)
        g['hbm'] += i.get('hbm_read_bytes', 0) + i.get('hbm_write_bytes', 0)
    return out


def ranked(gs, metric):
    """Groups best first: metric descending, then key text (None = '' sorts first)."""
    value = {'time': lambda g: g['duration_ns'] + g['evt_wait_ns'], 'duration': lambda g: g['duration_ns'],
             'wait': lambda g: g['evt_wait_ns'], 'count': lambda g: g['count'], 'hbm_bytes': lambda g: g['hbm']}[metric]
    return sorted(gs.items(), key=lambda kv: (-value(kv[1]), kv[0] or ''))


def engine_busy(d):
    """{subgroup: (busy_ns, intervals)} without EVENT_SEMAPHORE rows."""
    per = {}
    for i in d['instruction']:
        if i['opcode'] != SEMAPHORE:
            per.setdefault(i['subgroup'], []).append((i['timestamp'], i['timestamp'] + i['duration']))
    return {k: union(v) for k, v in per.items()}


def active_rows(d):
    """{engine (lowercase): (union_ns, rows)} of the export's active_time records."""
    per = {}
    for a in d.get('active_time', []):
        per.setdefault(a['engine'], []).append((a['start_ts'], a['end_ts']))
    return {k: (union(v)[0], len(v)) for k, v in per.items()}


def largest_gap(d, subgroup):
    """Largest gap between consecutive merged busy intervals of one engine (0 when none)."""
    spans = sorted((i['timestamp'], i['timestamp'] + i['duration']) for i in d['instruction']
                   if i['subgroup'] == subgroup and i['opcode'] != SEMAPHORE and i['duration'] > 0)
    best, end = 0, None
    for s, e in spans:
        if end is not None and s > end:
            best = max(best, s - end)
        end = e if end is None else max(end, e)
    return best


def small_dma(d):
    packets = [x for x in d['dma'] if x.get('aggregated') != 'yes' and x.get('duplicate') != 'yes']
    return {'packets': len(packets),
            'under_512': sum(1 for x in packets if x['transfer_size'] < 512),
            'under_512_bytes': sum(x['transfer_size'] for x in packets if x['transfer_size'] < 512),
            'under_4k': sum(1 for x in packets if x['transfer_size'] < 4096),
            'under_4k_bytes': sum(x['transfer_size'] for x in packets if x['transfer_size'] < 4096)}


def coverage(d):
    return sum(1 for i in d['instruction'] if source_of(i)), len(d['instruction'])


# ---- trace-extract ------------------------------------------------------------------------------------

def _overlaps(s, dur, a, b):
    e = s + max(dur, 0)
    a = -2**63 if a is None else a
    b = 2**63 if b is None else b
    if a == b:
        return s <= a and (e > a or s == a)
    return s < b and (e > a or (e == s and s >= a))


def extract(d, kind='instruction', sort='time', engine=None, opcode=None, start_ns=None, end_ns=None,
            source=None, layer=None, min_duration_ns=0, min_wait_ns=0):
    """Row indices of the export's array for a trace-extract query, in the tool's order."""
    array = {'instruction': 'instruction', 'dma': 'dma', 'semaphore': 'semaphore_update'}[kind]
    rows = d.get(array, [])
    out = []
    for idx, r in enumerate(rows):
        ts = r['timestamp']
        dur = r.get('duration', 0) if kind != 'semaphore' else 0
        if engine is not None:
            if kind == 'instruction':
                names = [r['subgroup'], r['label']]
            else:
                sub = r['subgroup']
                parts = sub.rsplit('-', 2)
                queue = parts[0] if len(parts) == 3 and parts[1][:1] == 'Q' and parts[2][:1] == 'E' else sub
                names = [queue, sub]
            if engine.lower() not in [n.lower() for n in names]:
                continue
        if opcode is not None:
            cands = [r['opcode']] + ([r['compiler_opcode']] if r.get('compiler_opcode') else [])
            if not any(fnmatch.fnmatchcase(c.lower(), opcode.lower()) for c in cands if c):
                continue
        if (start_ns is not None or end_ns is not None) and not _overlaps(ts, dur, start_ns, end_ns):
            continue
        if source is not None and source.lower() not in source_of(r).lower():
            continue
        if layer is not None and (not r.get('layer') or layer.lower() not in r['layer'].lower()):
            continue
        if min_duration_ns and dur < min_duration_ns:
            continue
        if min_wait_ns and r.get('evt_wait_time', 0) < min_wait_ns:
            continue
        out.append(idx)

    def value(idx):
        r = rows[idx]
        if sort == 'duration':
            return r.get('duration', 0)
        if sort == 'wait':
            return r.get('evt_wait_time', 0)
        if sort == 'bytes':
            if kind == 'dma':
                return r['transfer_size']
            return sum(r.get(k, 0) for k in ('hbm_read_bytes', 'hbm_write_bytes', 'sbuf_read_bytes', 'sbuf_write_bytes'))
        return 0
    return sorted(out, key=lambda idx: (-value(idx), rows[idx]['timestamp'], idx))

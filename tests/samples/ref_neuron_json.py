#!/usr/bin/python3
"""Independent reference for the neuron_json reader: aggregates of a full JSON export, standard library only.

Usage: ref_neuron_json.py EXPORT.json            aggregates of a neuron-profile full JSON export
       ref_neuron_json.py --summary-json FILE    the metrics of a summary-json file

Prints one JSON object on stdout with exactly the shape `neuron_json_dump` prints, so the two can be diffed
(run_neuron_json_samples.py). It loads the whole file with json.load and shares no code or logic tables with
the C reader; the rules it applies are those of docs/formats.md section 4:
  - times relative to metadata[0].first_hw_timestamp (0 when absent)
  - engine = instruction `subgroup`; DMA trigger = compiler_opcode PSEUDO_DMA_* or opcode DMA_*
  - source location = nki_source_location, else bir_debug_info_source_location, else the first hlo_attrs
    element with a non-empty source_file and a source_line other than "" / "0", as "file:line"
  - dma: aggregated:"yes" = transfer record, else packet; queue = subgroup without "-Q<n>-E<n>"
64-bit ids are compared through their XOR and their sum mod 2^64, printed as decimal strings.
"""
import json
import re
import sys

MASK64 = (1 << 64) - 1
TABLES = ("instruction", "dma", "active_time", "semaphore_update", "layer_summary", "warnings")
RECORDS = ("summary", "metadata", "model_info", "profile_info", "neff_header")
BYTE_FIELDS = ("hbm_read_bytes", "hbm_write_bytes", "sbuf_read_bytes", "sbuf_write_bytes",
               "psum_read_bytes", "psum_write_bytes", "spill_save_bytes", "spill_reload_bytes")
ENGINES = ("tensor", "vector", "scalar", "gpsimd", "sync")
QUEUE_RE = re.compile(r"^(.*)-Q[0-9]+-E[0-9]+$")


def source_location(rec):
    for key in ("nki_source_location", "bir_debug_info_source_location"):
        if rec.get(key):
            return rec[key]
    text = rec.get("hlo_attrs") or ""
    try:
        attrs = json.loads(text) if text else []
    except ValueError:
        return ""
    if not isinstance(attrs, list):
        return ""
    for a in attrs:
        if not isinstance(a, dict):
            continue
        f, line = a.get("source_file"), a.get("source_line")
        line = str(line) if isinstance(line, (str, int)) and not isinstance(line, bool) else ""
        if isinstance(f, str) and f and line not in ("", "0"):
            return "%s:%s" % (f, line)
    return ""


def scalar(v):
    """A record value as the dump prints it: numbers and strings as is, bools as bools, others None."""
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return "(compound)"


def instructions(rows, origin):
    per_engine, per_label, per_opcode, bytes_ = {}, {}, {}, {k: 0 for k in BYTE_FIELDS}
    triggers = with_source = 0
    id_xor = id_sum = 0
    t_min = t_max_end = None
    for r in rows:
        eng = r.get("subgroup", "")
        per_engine[eng] = per_engine.get(eng, 0) + 1
        lab = r.get("label", "")
        per_label[lab] = per_label.get(lab, 0) + 1
        op = per_opcode.setdefault(r.get("opcode", ""), {"count": 0, "duration": 0, "evt_wait": 0})
        op["count"] += 1
        op["duration"] += r.get("duration", 0)
        op["evt_wait"] += r.get("evt_wait_time", 0)
        for k in BYTE_FIELDS:
            bytes_[k] += r.get(k, 0)
        if str(r.get("compiler_opcode", "")).startswith("PSEUDO_DMA_") or str(r.get("opcode", "")).startswith("DMA_"):
            triggers += 1
        if source_location(r):
            with_source += 1
        i = r.get("id", 0)
        id_xor ^= i
        id_sum = (id_sum + i) & MASK64
        ts = r.get("timestamp", 0) - origin
        end = ts + r.get("duration", 0)
        t_min = ts if t_min is None else min(t_min, ts)
        t_max_end = end if t_max_end is None else max(t_max_end, end)
    return {
        "count": len(rows), "per_engine": per_engine, "per_label": per_label, "per_opcode": per_opcode,
        "bytes": bytes_, "dma_triggers": triggers, "with_source": with_source,
        "id_xor": str(id_xor), "id_sum": str(id_sum),
        "first_timestamp": t_min if t_min is not None else 0, "last_end": t_max_end if t_max_end is not None else 0,
    }


def dmas(rows, origin):
    out = {"packets": 0, "aggregated": 0, "packet_bytes": 0, "aggregated_bytes": 0, "cc": 0, "duplicate": 0,
           "per_queue_type": {}, "per_queue": {}, "variable_unknown": 0, "agg_id_xor": "0", "id_xor": "0",
           "first_timestamp": 0, "duration_sum": 0}
    agg_xor = id_xor = 0
    ts_min = None
    for r in rows:
        size = r.get("transfer_size", 0)
        if r.get("aggregated") == "yes":
            out["aggregated"] += 1
            out["aggregated_bytes"] += size
        else:
            out["packets"] += 1
            out["packet_bytes"] += size
            qt = out["per_queue_type"].setdefault(r.get("queue_type", ""), {"count": 0, "bytes": 0})
            qt["count"] += 1
            qt["bytes"] += size
        m = QUEUE_RE.match(r.get("subgroup", ""))
        q = m.group(1) if m else r.get("subgroup", "")
        out["per_queue"][q] = out["per_queue"].get(q, 0) + 1
        out["cc"] += r.get("is_cc_dma") == "yes"
        out["duplicate"] += r.get("duplicate") == "yes"
        out["variable_unknown"] += r.get("variable") == "unknown"
        agg_xor ^= r.get("packet_aggregation_id", 0)
        id_xor ^= r.get("id", 0)
        out["duration_sum"] += r.get("duration", 0)
        ts = r.get("timestamp", 0) - origin
        ts_min = ts if ts_min is None else min(ts_min, ts)
    out["agg_id_xor"], out["id_xor"] = str(agg_xor), str(id_xor)
    out["first_timestamp"] = ts_min if ts_min is not None else 0
    return out


def active_time(rows, origin):
    out = {}
    for r in rows:
        e = out.setdefault(r.get("engine", ""), {"count": 0, "duration_sum": 0, "span_sum": 0, "start_min": None})
        e["count"] += 1
        e["duration_sum"] += r.get("duration_ns", 0)
        e["span_sum"] += r.get("end_ts", 0) - r.get("start_ts", 0)
        s = r.get("start_ts", 0) - origin
        e["start_min"] = s if e["start_min"] is None else min(e["start_min"], s)
    return out


def layers(rows, origin):
    out = []
    for r in rows:
        row = {"name": r.get("name", ""), "start": r.get("start", 0) - origin, "end": r.get("end", 0) - origin,
               "duration": r.get("duration", 0), "tensor_engine_flop_count": r.get("tensor_engine_flop_count", 0),
               "tensor_engine_mfu": float(r.get("tensor_engine_mfu", 0))}
        for e in ENGINES:
            for k in ("active_time", "instruction_time", "instruction_count"):
                row["%s_engine_%s" % (e, k)] = r.get("%s_engine_%s" % (e, k), 0)
        out.append(row)
    return out


def aggregate(doc):
    meta = (doc.get("metadata") or [{}])[0]
    origin = meta.get("first_hw_timestamp", 0)
    sems = doc.get("semaphore_update", [])
    return {
        "arrays": {k: (len(v) if isinstance(v, list) else None) for k, v in doc.items()},
        "time_origin": origin,
        "instruction": instructions(doc.get("instruction", []), origin),
        "dma": dmas(doc.get("dma", []), origin),
        "active_time": active_time(doc.get("active_time", []), origin),
        "semaphore_update": {"count": len(sems), "value_sum": sum(r.get("value", 0) for r in sems),
                             "timestamp_sum": sum(r.get("timestamp", 0) - origin for r in sems)},
        "layer_summary": layers(doc.get("layer_summary", []), origin),
        "warnings": [{"category": w.get("category", ""), "message": w.get("message", "")}
                     for w in doc.get("warnings", [])],
        "records": {k: {kk: scalar(vv) for kk, vv in doc[k][0].items()}
                    for k in RECORDS if isinstance(doc.get(k), list) and doc[k]},
    }


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary-json":
        with open(argv[2], "rb") as f:
            doc = json.load(f)
        out = {name: {k: scalar(v) for k, v in m.items()} for name, m in doc.items() if isinstance(m, dict)}
    elif len(argv) == 2:
        with open(argv[1], "rb") as f:
            out = aggregate(json.load(f))
    else:
        sys.stderr.write(__doc__)
        return 2
    json.dump(out, sys.stdout, sort_keys=True, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

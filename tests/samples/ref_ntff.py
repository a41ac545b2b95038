#!/usr/bin/python3
"""Independent stdlib-only reference decoder for the NTFF payload (../shared/docs/ntff.md).

Written separately from analyzers/readers/ntff_payload*.c to check it: whole file in memory, exact rational
arithmetic (fractions.Fraction), dictionaries instead of tables. It follows ntff.md and the choices
ntff_payload.h documents where ntff.md is silent:

- records outside the documented bit patterns are skipped and counted;
- the export's origin rule G applies when every engine with instructions has one start-up stream, then a
  main stream holding the 0x20 marker and a finished instruction after it; otherwise every paired
  instruction is kept and the origin is the earliest instruction start ("first_start");
- DMA packets are visible when they start at or after the origin;
- evt_wait is cycles / 1.4 only when some engine clock is not the identity (it is 0 otherwise);
- opcode names come from the table learned on the inf2 pairs, only for inf2/trn1; a pc byte gives a full
  pc / an opcode only when one slot / all candidate slots agree.

Usage: ref_ntff.py FILE.ntff  → prints {"version", "trust", "cores": [...]} like tests/samples/ntff_payload_dump.
"""
import json
import math
import struct
import sys
from fractions import Fraction

ENGINES = {1: "Tensor", 2: "Scalar", 3: "GpSimd", 4: "Vector", 5: "Sync"}
CLOCK_OF_ENGINE = {1: 1, 2: 2, 3: 4, 4: 3, 5: 5}
OPCODES = {0x01: "LDWEIGHTS", 0x02: "MATMUL", 0x21: "ACTIVATE", 0x23: "ACT_TABLE_LOAD", 0xA0: "EVENT_SEMAPHORE",
           0xA2: "DRAIN", 0xA4: "NOP", 0xA5: "WRITE", 0xA6: "NOTIFY", 0xA9: "COMPARE_BRANCH",
           0xAA: "TENSOR_LOAD", 0xAB: "TENSOR_STORE", 0xB0: "EVENT_SEMAPHORE_RANGE_CLEAR",
           0xB1: "SET_ORDERING_MODE", 0xB8: "DMA_DIRECT2D"}
KNOWN_SECTIONS = {(0, 0, 0), (1, 0, 0), (2, 0, 0), (4, 1, 0), (5, 0, 0)}


def pb_fields(buf):
    """[(number, value)]: value is an int (varint) or bytes (length-delimited)."""
    out, p = [], 0
    while p < len(buf):
        tag, p = varint(buf, p)
        wire = tag & 7
        if wire == 0:
            v, p = varint(buf, p)
        elif wire == 2:
            n, p = varint(buf, p)
            v, p = buf[p:p + n], p + n
        elif wire == 1:
            v, p = struct.unpack_from("<Q", buf, p)[0], p + 8
        elif wire == 5:
            v, p = struct.unpack_from("<I", buf, p)[0], p + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.append((tag >> 3, v))
    return out


def varint(buf, p):
    v = shift = 0
    while True:
        b = buf[p]
        p += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, p


def submsg(buf):
    d = {}
    for n, v in pb_fields(buf):
        d[n] = v
    return d


def layout(data):
    version = data[0]
    meta_len = data[1] | data[2] << 8 | data[3] << 16
    meta = pb_fields(data[128:128 + meta_len])
    payload = data[128 + meta_len:]
    cores = []
    for n, v in meta:
        if n != 4:
            continue
        for n2, v2 in pb_fields(v):
            if n2 != 4:
                continue
            for n3, v3 in pb_fields(v2):
                if n3 == 1:
                    cores.append(parse_core(v3, version, payload))
    if version >= 6:
        for n, v in meta:
            if n == 16:
                e = submsg(v)
                sec = dict(kind=e.get(1, 0), sub=e.get(3, 0), f4=e.get(4, 0), offset=e.get(5, 0), size=e.get(6, 0))
                for c in cores:
                    if c["physical_id"] == e.get(7):
                        c["sections"].append(sec)
    instance = ""
    for n, v in meta:
        if n == 9:
            instance = v.decode()
    return version, instance, cores, payload


def parse_core(buf, version, payload):
    core = dict(name="", physical_id=None, f14=None, sections=[], clocks={}, dma_clocks=[], slots={}, code={})
    for n, v in pb_fields(buf):
        if n == 1:
            core["name"] = v.decode()
        elif n == 3:
            core["physical_id"] = v
        elif n == 14:
            core["f14"] = v
        elif n == 6 and version < 6:
            e = submsg(v)
            core["sections"].append(dict(kind=e.get(1, 0), sub=e.get(3, 0), f4=e.get(4, 0), offset=e.get(5, 0),
                                         size=e.get(6, 0)))
        elif n == 10:
            for sub, entry in pb_fields(v):
                if not isinstance(entry, bytes):
                    continue
                e = submsg(entry)
                clock = (e.get(1, 0), e.get(2, 0), e.get(3, 0))
                if sub == 8:
                    core["dma_clocks"].append(clock)
                else:
                    core["clocks"][sub] = clock
        elif n == 4:
            e = submsg(v)
            code = e[3] if 3 in e else payload[e.get(7, 0):e.get(7, 0) + e.get(8, 0)]
            core["slots"][e.get(1, 0) + 1] = [code[i] for i in range(0, len(code), 64)]
            core["code"][e.get(1, 0) + 1] = bytes(code)
    return core


def ns(ts, clock):
    base, nominal, measured = clock
    return Fraction((ts - base) * measured, nominal * 1000)


def records(core, payload, kind):
    for s in core["sections"]:
        if (s["kind"], s["sub"], s["f4"]) in KNOWN_SECTIONS and s["kind"] == kind:
            for i in range(s["size"] // 16):
                yield struct.unpack_from("<BBBBIQ", payload, s["offset"] + 16 * i)


def instr_ok(d):
    return d & 0x82 == 0x80 and 1 <= (d >> 2) & 31 <= 5


def origin(core, payload):
    """(rule, G as a Fraction or None, main stream per engine, why). Like the C decoder, the streams are
    looked at up to the record where all five engines know their G (the rest cannot change G)."""
    per = {}
    for a, b, c, d, w, ts in records(core, payload, 0):
        if not instr_ok(d):
            continue
        e = (d >> 2) & 31
        g = per.setdefault(e, dict(streams=[], main=None, marker_index=None, pc=None, end_ts=None))
        if b not in g["streams"]:
            g["streams"].append(b)
        if g["main"] is None:
            if c & 0x20:
                g["main"], g["marker_index"] = b, g["streams"].index(b)
        elif g["pc"] is None:
            if not d & 1 and b == g["main"]:
                g["pc"] = a
        elif g["end_ts"] is None and d & 1 and b == g["main"] and a == g["pc"]:
            g["end_ts"] = ts
            if len(per) == 5 and all(x["end_ts"] is not None for x in per.values()):
                break
    if not per:
        return "none", None, {}, "no instruction records"
    why = None
    for e in sorted(per):
        g = per[e]
        if g["main"] is None:
            why = "engine %s has no 0x20 start-up marker" % ENGINES[e]
        elif g["marker_index"] != 1 or len(g["streams"]) > 2:
            why = "engine %s: the marker is not in the second of exactly two streams (start-up, main)" % ENGINES[e]
        elif g["end_ts"] is None:
            why = "engine %s has no finished main-stream instruction after the marker" % ENGINES[e]
        if why:
            break
    if why is None:
        G = max(ns(per[e]["end_ts"], core["clocks"][CLOCK_OF_ENGINE[e]]) for e in per)
        return "export_g", G, {e: per[e]["main"] for e in per}, ""
    first = None
    for a, b, c, d, w, ts in records(core, payload, 0):
        if instr_ok(d) and not d & 1:
            t = ns(ts, core["clocks"][CLOCK_OF_ENGINE[(d >> 2) & 31]])
            first = t if first is None or t < first else first
    return "first_start", first, {}, why


def slot_tables(slots):
    pc_of, op_of = {}, {}
    for a in range(256):
        cands = list(range(a, len(slots), 256))
        pc_of[a] = cands[0] if len(cands) == 1 else -1
        ops = {slots[k] for k in cands}
        op_of[a] = ops.pop() if len(ops) == 1 else None
    return pc_of, op_of


def decode_core(core, payload, arch, evt_wait):
    rule, G, main, why = origin(core, payload)
    names = arch in ("inf2", "trn1")
    tables = {e: slot_tables(core["slots"].get(e, [])) for e in ENGINES}
    instructions, open_, skipped, per_engine, last = [], {}, 0, {e: 0 for e in ENGINES}, None
    for a, b, c, d, w, ts in records(core, payload, 0):
        if not instr_ok(d):
            skipped += 1
            continue
        e = (d >> 2) & 31
        if not d & 1:
            open_[(e, b, a)] = (ts, w)
            continue
        st, sw = open_.pop((e, b, a))  # a KeyError is "more ends than starts"
        if rule == "none" or (rule == "export_g" and b != main[e]):
            continue
        clock = core["clocks"][CLOCK_OF_ENGINE[e]]
        s, t = ns(st, clock), ns(ts, clock)
        if s < G:
            continue
        pc_of, op_of = tables[e]
        op = op_of[a]
        opcode = "" if op is None else (OPCODES[op] if names and op in OPCODES else "OPCODE_0x%02x" % op)
        label = "TensorMatrix" if names and e == 1 and op == 0x02 else ENGINES[e]
        wait = (sw >> 16) * 5 // 7 if evt_wait else 0
        instructions.append([math.floor(s - G), math.floor(t - s), ENGINES[e], wait, a, pc_of[a], opcode, label])
        per_engine[e] += 1
        last = math.floor(t - G) if last is None else max(last, math.floor(t - G))
    dma, pending, dma_skipped = [], {}, 0
    for a, b, c, d, w, ts in records(core, payload, 4):
        eng, queue, typ = d & 0x7F, (w >> 4) & 15, w & 15
        if not d & 0x80 or eng >= len(core["dma_clocks"]) or typ not in (1, 5, 6):
            dma_skipped += 1
            continue
        if typ == 1:
            pending.setdefault((eng, queue), []).append(ts)
        elif typ == 5:
            start = pending[(eng, queue)].pop(0)
            clock = core["dma_clocks"][eng]
            s, t = ns(start, clock), ns(ts, clock)
            if G is not None and s >= G:
                dma.append([math.floor(s - G), math.floor(t - s), eng, queue, a | b << 8, w >> 16])
    sems, sem_records = [], 0
    for a, b, c, d, w, ts in records(core, payload, 1):
        sem_records += 1
        if d & 0x83 == 0x83:
            sems.append([math.floor(ns(ts, core["clocks"][6]) - (G or 0)), a, w, d, b, c])
    counts = {"tensor": 1, "vector": 4, "scalar": 2, "gpsimd": 3, "sync": 5}
    model_info = {"sg_name": core["name"], "event_count": sem_records}
    for k, e in counts.items():
        model_info[k + "_engine_instruction_count"] = per_engine[e]
    return {
        "name": core["name"], "physical_id": -1 if core["physical_id"] is None else core["physical_id"],
        "f14": -1 if core["f14"] is None else core["f14"],
        "origin": {"rule": rule, "why": why}, "origin_ns": None if G is None else math.floor(G),
        "instructions": instructions, "dma": dma, "semaphores": sems, "skipped": {"instr": skipped, "dma": dma_skipped},
        "last_hw_timestamp": last, "model_info": model_info,
        "slots": {ENGINES[e]: len(core["slots"].get(e, [])) for e in ENGINES},
    }


def decode(path):
    data = open(path, "rb").read()
    version, instance, cores, payload = layout(data)
    arch = instance.split(".")[0]
    identity = all(c == (0, n, n) for core in cores for sub, c in core["clocks"].items() if 1 <= sub <= 5
                   for n in [c[1]])
    evt_wait = not identity
    return {
        "version": version,
        "trust": {"level": "verified" if version == 5 and arch == "inf2" else "unverified", "architecture": arch,
                  "evt_wait": evt_wait, "opcode_names": arch in ("inf2", "trn1")},
        "cores": [decode_core(c, payload, arch, evt_wait) for c in cores],
    }


if __name__ == "__main__":
    json.dump(decode(sys.argv[1]), sys.stdout)
    sys.stdout.write("\n")

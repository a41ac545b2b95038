#!/usr/bin/env python3
"""Samples test: NEFF static facts (analyzers/readers/neff_static.c) against a stdlib-Python reading.

Usage: test_neff_static.py NEFF_DUMP_EXE REF_NTFF_SCRIPT
For every NEFF under $NL_SAMPLES_DIR: the C dump equals what Python's tarfile + a protobuf walker find —
per subgraph and engine the slot count, the byte-0 histogram, the debug_info_asm entry count and the first
BIR ids; def.json versions; metrics.json; hlo_stats.json; the HLO table; kernel names with the klir
debuginfo's source file and line. For every NEFF/NTFF pair, the alignment of each engine program in the
NTFF core of the same name equals Python's brute-force search, and the numbers below hold (they say how
much of the NEFF's program the NTFF carries verbatim). Exit 77 with the reason when the samples are absent.
"""
import collections
import glob
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile

STEMS = ("PE", "Activation", "Pool", "DVE", "SP")  # NTFF engine codes 1..5
PAIRS = {  # NEFF → NTFF
    "neff-ntff/stream_256k_fd1k.neff": "neff-ntff/stream_256k_fd1k.ntff",
    "neff-ntff/stream_256k_fd1k_trn2.neff": "neff-ntff/stream_256k_fd1k_trn2.ntff",
    "nki-kernel/v6b.neff": "nki-kernel/profile_v6b_exec_2.ntff",
    "capture/i-0af76a70a6d3864dd_pid_713479/neff_171450338541704.neff":
        "capture/i-0af76a70a6d3864dd_pid_713479/profile_exec_2.ntff",
}
# [neff_slots, ntff_slots, offset, equal_slots, equal_opcodes] for the large programs (v6 sg00): all but
# the last two slots of PE, Activation and DVE appear verbatim at NTFF slot 66 (a 66-slot runtime preamble).
EXPECTED_MATCH = {
    ("nki-kernel/v6b.neff", "sg00"): {"PE": [1474, 1551, 66, 1472, 1472], "Activation": [467, 544, 66, 465, 465],
                                      "DVE": [386, 463, 66, 384, 384], "Pool": [931, 1033, 74, 464, 464],
                                      "SP": [11, 92, 63, 1, 1]},
    ("capture/i-0af76a70a6d3864dd_pid_713479/neff_171450338541704.neff", "sg00"): {
        "PE": [1643, 1720, 66, 1641, 1641], "Activation": [535, 612, 66, 533, 533], "DVE": [388, 465, 66, 386, 386],
        "Pool": [4749, 4851, 74, 2410, 2410], "SP": [11, 92, 63, 1, 1]},
}


def load_ref(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("ref_ntff", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def members(path):
    data = open(path, "rb").read()
    size = int.from_bytes(data[16:24], "little")
    out = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data[1024:1024 + size]))) as tar:
        for m in tar.getmembers():
            if m.isfile():
                out[m.name[2:] if m.name.startswith("./") else m.name] = tar.extractfile(m).read()
    return out


def reference(path, ref):
    mem = members(path)
    info = json.loads(mem["info.json"])
    kelf = json.loads(mem["kelf-0.json"])
    out = {"tool_version": info.get("tool_version"), "kelp_version": info.get("kelp_version"),
           "kelf_target": kelf.get("target"), "kelf_version": kelf.get("version"), "subgraphs": {}, "kernels": [],
           "metrics": [], "hlo_stats": {}, "hlo": []}
    for name, body in mem.items():
        parts = name.split("/")
        if len(parts) != 2 or not parts[0].startswith("sg"):
            continue
        sg = out["subgraphs"].setdefault(parts[0], {"def_version": "", "engines": {}})
        if parts[1] == "def.json":
            sg["def_version"] = json.loads(body).get("version", "")
        for stem in STEMS:
            if parts[1] == stem + ".bin":
                e = sg["engines"].setdefault(stem, {})
                e["slots"] = len(body) // 64
                e["opcodes"] = {"0x%02x" % k: v for k, v in collections.Counter(body[0::64]).items()}
            elif parts[1] == "debug_info_asm_%s.dbg" % stem:
                entries = [v for n, v in ref.pb_fields(body) if n == 3]
                firsts = []
                for entry in entries:
                    ids = [v for n, v in ref.pb_fields(entry) if n == 3]
                    firsts.append(ref.varint(ids[0], 0)[0] if ids and ids[0] else 0)
                sg["engines"].setdefault(stem, {})["asm"] = firsts
    for sg in out["subgraphs"].values():
        for e in sg["engines"].values():
            firsts = e.pop("asm", [])
            e["asm_entries"] = len(firsts)
            e["bir_ids"] = len(firsts) == e["slots"]
            e["first_bir_ids"] = firsts[:8] if e["bir_ids"] else []
    if "metrics.json" in mem:
        out["metrics"] = [[m["MetricName"], float(m["Value"]), m.get("Unit", "")]
                          for m in json.loads(mem["metrics.json"])]
    if "hlo_stats.json" in mem:
        out["hlo_stats"] = {k: float(v) for k, v in json.loads(mem["hlo_stats.json"]).items()}
    for name in sorted(n for n in mem if n.startswith("debug_info/debug_info_hlo.dbg")):
        for n, entry in ref.pb_fields(mem[name]):
            if n != 3:
                continue
            f = ref.pb_fields(entry)
            attrs = {}
            for k, v in f:
                if k == 7:
                    kv = dict(ref.pb_fields(v))
                    attrs.setdefault(kv.get(1, b"").decode(), kv.get(2, b"").decode())
            text = next((v.decode() for k, v in f if k == 2), None)
            line = attrs.get("source_line")
            out["hlo"].append([next((v for k, v in f if k == 1), 0), text, attrs.get("op_type"),
                               attrs.get("source_file"), int(line) if line and line.isdigit() else -1])
    if "kernel_debug_info.json" in mem:
        for d in json.loads(mem["kernel_debug_info.json"]).get("debug_info_files", []):
            klir = json.loads(mem[d["file_name"]]) if d["file_name"] in mem else []
            func = next((x["func"] for top in klir for x in top.get("info", []) if "func" in x), {})
            out["kernels"].append([d.get("kernel_name"), d.get("file_name"), func.get("file"), func.get("line", -1)])
    return out


def best_alignment(neff_bin, ntff_code):
    nb, ns = len(neff_bin) // 64, len(ntff_code) // 64
    if nb == 0 or ns < nb:
        return [nb, ns, -1, 0, 0]
    a = [neff_bin[64 * i:64 * i + 64] for i in range(nb)]
    b = [ntff_code[64 * i:64 * i + 64] for i in range(ns)]
    best = None
    for off in range(ns - nb + 1):
        eq = sum(1 for i in range(nb) if a[i] == b[off + i])
        if best is None or eq > best[1]:
            best = (off, eq)
    ops = sum(1 for i in range(nb) if a[i][0] == b[best[0] + i][0])
    return [nb, ns, best[0], best[1], ops]


def main():
    dump, ref_path = sys.argv[1], sys.argv[2]
    samples = os.environ.get("NL_SAMPLES_DIR", "")
    if not samples or not os.path.isdir(samples):
        print("SKIP: NL_SAMPLES_DIR (%r) is not a directory: no real NEFF samples" % samples)
        return 77
    ref = load_ref(ref_path)
    failures = []
    neffs = sorted(glob.glob(os.path.join(samples, "*", "*.neff")) +
                   glob.glob(os.path.join(samples, "*", "*", "*.neff")))
    if not neffs:
        print("SKIP: no .neff under %s" % samples)
        return 77
    for path in neffs:
        rel = os.path.relpath(path, samples)
        argv = [dump]
        if rel in PAIRS:
            argv += ["--ntff", os.path.join(samples, PAIRS[rel])]
        p = subprocess.run(argv + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        if p.returncode != 0:
            failures.append("%s: dump failed: %s" % (rel, p.stderr.decode(errors="replace")))
            continue
        c = json.loads(p.stdout)
        py = reference(path, ref)
        for k in py:
            if c.get(k) != py[k]:
                failures.append("%s: %s differs: C %s / Python %s" % (rel, k, json.dumps(c.get(k))[:300],
                                                                        json.dumps(py[k])[:300]))
        if c["problems"] != 0:
            failures.append("%s: %d problems" % (rel, c["problems"]))
        if rel in PAIRS:
            _, cores, payload = ref.layout(open(os.path.join(samples, PAIRS[rel]), "rb").read())[1:]
            mem = members(path)
            for core in cores:
                want = {}
                for e, stem in enumerate(STEMS, 1):
                    want[stem] = best_alignment(mem.get("%s/%s.bin" % (core["name"], stem), b""),
                                                core["code"].get(e, b""))
                got = c["match"].get(core["name"])
                if got != want:
                    failures.append("%s %s: match C %r Python %r" % (rel, core["name"], got, want))
                if (rel, core["name"]) in EXPECTED_MATCH and got != EXPECTED_MATCH[(rel, core["name"])]:
                    failures.append("%s %s: match %r, expected %r" % (rel, core["name"], got,
                                                                    EXPECTED_MATCH[(rel, core["name"])]))
                print("%s %s: %s" % (rel, core["name"], ", ".join("%s %d/%d slots verbatim at NTFF slot %d" % (
                    s, v[3], v[0], v[2]) for s, v in (got or {}).items())))
        print("%s: %s, %d kernels, %d HLO entries, subgraphs %s" % (rel, c["tool_version"], len(c["kernels"]),
                                                                    len(c["hlo"]), ", ".join(sorted(c["subgraphs"]))))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Samples test: the native NTFF payload decoder against ground truth.

Usage: test_ntff_payload.py DUMP_EXE REF_SCRIPT
  DUMP_EXE   tests/samples/ntff_payload_dump (C: ntff_payload_fill_model per core → JSON)
  REF_SCRIPT tests/samples/ref_ntff.py (independent stdlib-Python decoder)

1. Every NTFF under $NL_SAMPLES_DIR decodes without error; the C rows (instructions, DMA packets, semaphore
   records), origin rule, skipped records, last_hw_timestamp and model_info equal the Python reference's
   exactly, and the C output is the same with one thread, with 4,096-byte and 16-byte read chunks.
2. neuron-profile-json pairs (v5, inf2, verified): every exported instruction equals a decoded one on
   (timestamp, duration, subgroup, evt_wait_time, pc & 0xff) and also on full pc, opcode and label; every
   non-aggregated DMA row equals a decoded packet on (timestamp, duration, dma_engine, dma_queue,
   transfer_size, crc) — none is 1 ns off in these three files; the one aggregated row per file has no
   counterpart (neuron-profile builds it); per-engine counts and event_count equal model_info;
   last_hw_timestamp equals metadata's. The C cross-check (ntff_payload_crosscheck) reports the same.
3. The other samples (v4 trn1, v5 trn2, v6 trn2), labelled unverified: concrete counts, checked against the
   Python reference above and written here.
4. The v6 capture: the decoded span of each core against the system profile's nc_exec_running (another
   execution of the same model: exec_id 1 in ntrace.pb, exec 2 in the NTFF), within the stated tolerance.
5. Layout facts (ntff.md and what this decoder relies on beyond it), on the files themselves: in v4/v5 the
   section sizes add up to the payload length; in v6 the sections plus the instruction streams of fields
   4.7/4.8 (the bytes ntff.md calls uncovered) add up to it; on the export pairs each engine's slot count
   is the export's largest pc + 1.
Exit 77 (meson: skipped) with the reason printed when the samples are absent.
"""
import collections
import glob
import json
import os
import subprocess
import sys

ENGINE_OF_SUBGROUP = {"Tensor": "tensor", "Vector": "vector", "Scalar": "scalar", "GpSimd": "gpsimd", "Sync": "sync"}

# Section 3: counts of the unverified samples (C and Python agree on them; see section 1).
# Per core: (name, physical id, origin rule, visible instructions T/S/G/V/Sy, skipped instruction records,
# last_hw_timestamp, DMA packets visible, skipped DMA records, semaphore records).
EXPECTED_UNVERIFIED = {
    "neff-ntff/stream_256k_fd1k.ntff": (4, "trn1", [
        ("sg00", -1, "export_g", (73, 70, 80, 73, 68), 0, 29832, 353, 0, 439)]),
    "neff-ntff/stream_256k_fd1k_trn2.ntff": (5, "trn2", [
        ("sg00", 4, "export_g", (30, 25, 29, 27, 24), 0, 26862, 833, 0, 447),
        ("sg01", 5, "export_g", (30, 25, 24, 25, 19), 0, 8139, 0, 27, 293)]),
    "nki-kernel/profile_v6b_exec_2.ntff": (6, "trn2", [
        ("sg00", 4, "first_start", (1513, 496, 977, 415, 45), 160, 286500, 9393, 0, 4621),
        ("sg01", 5, "first_start", (40, 30, 30, 30, 25), 0, 17120, 0, 33, 305)]),
    "capture/i-0af76a70a6d3864dd_pid_713479/profile_exec_2.ntff": (6, "trn2", [
        ("sg00", 4, "first_start", (1682, 564, 4795, 417, 45), 784, 1012134, 25535, 0, 14487),
        ("sg01", 5, "first_start", (40, 30, 30, 30, 25), 0, 17296, 0, 33, 301)]),
}
ENGINE_ORDER = ("Tensor", "Scalar", "GpSimd", "Vector", "Sync")

# Section 4: nc_exec_running per device core (samples README), ns.
NC_EXEC_RUNNING = {4: 982590, 5: 14763}
NC_EXEC_UNION = 984438
# Tolerances, relative: core 4 and the union within 5 % (measured +3.0 % and +2.8 %); core 5, whose whole
# run is ~15 µs, within 20 % (measured +17.2 %). The NTFF is another execution than the system trace's.
SPAN_TOLERANCE = {4: 0.05, 5: 0.20, "union": 0.05}


def run_json(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout)


def check(cond, msg, failures):
    if not cond:
        failures.append(msg)


def compare_with_reference(name, c, py, failures):
    check(c["version"] == py["version"], "%s: version" % name, failures)
    for k in ("level", "architecture", "evt_wait", "opcode_names"):
        check(c["trust"][k] == py["trust"][k], "%s: trust.%s C %r Python %r" % (name, k, c["trust"][k], py["trust"][k]),
              failures)
    check(len(c["cores"]) == len(py["cores"]), "%s: core count" % name, failures)
    for cc, pc in zip(c["cores"], py["cores"]):
        where = "%s %s" % (name, cc["name"])
        for k in ("name", "physical_id", "f14", "slots"):
            check(cc[k] == pc[k], "%s: %s C %r Python %r" % (where, k, cc[k], pc[k]), failures)
        check(cc["origin"]["rule"] == pc["origin"]["rule"], "%s: origin rule" % where, failures)
        check(cc["origin"]["why"] == pc["origin"]["why"], "%s: origin why" % where, failures)
        if pc["origin_ns"] is not None:
            check(cc["origin"]["floor_ns"] == pc["origin_ns"], "%s: origin floor" % where, failures)
        for table in ("instructions", "dma", "semaphores"):
            a, b = cc[table], pc[table]
            if a != b:
                first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                failures.append("%s: %s differ (C %d rows, Python %d; first at %d: C %r Python %r)" % (
                    where, table, len(a), len(b), first, a[first] if first < len(a) else None,
                    b[first] if first < len(b) else None))
        check(cc["stats"]["instr"]["skipped"] == pc["skipped"]["instr"], "%s: skipped instruction records" % where,
              failures)
        check(cc["stats"]["dma"]["skipped"] == pc["skipped"]["dma"], "%s: skipped DMA records" % where, failures)
        check(cc["metadata"].get("last_hw_timestamp") == pc["last_hw_timestamp"], "%s: last_hw_timestamp" % where,
              failures)
        for k, v in pc["model_info"].items():
            check(cc["model_info"].get(k) == v,
                  "%s: model_info.%s C %r Python %r" % (where, k, cc["model_info"].get(k), v), failures)


def compare_with_export(name, c, export_path, failures):
    ex = json.load(open(export_path))
    core = c["cores"][0]
    # instructions: the five fields ntff.md names, then everything the decoder fills
    e5 = collections.Counter((i["timestamp"], i["duration"], i["subgroup"], i["evt_wait_time"], i["pc"] & 0xFF)
                             for i in ex["instruction"])
    d5 = collections.Counter((r[0], r[1], r[2], r[3], r[4]) for r in core["instructions"])
    check(e5 == d5, "%s: instructions differ on (timestamp, duration, engine, evt_wait, pc byte): export-only %s, "
          "decoded-only %s" % (name, list((e5 - d5).elements())[:3], list((d5 - e5).elements())[:3]), failures)
    e8 = collections.Counter((i["timestamp"], i["duration"], i["subgroup"], i["evt_wait_time"], i["pc"] & 0xFF, i["pc"],
                              i["opcode"], i["label"]) for i in ex["instruction"])
    d8 = collections.Counter(tuple(r) for r in core["instructions"])
    check(e8 == d8, "%s: instructions differ on pc, opcode or label: export-only %s" % (
        name, list((e8 - d8).elements())[:3]), failures)
    packets = [x for x in ex["dma"] if x.get("aggregated") != "yes"]
    aggregated = len(ex["dma"]) - len(packets)
    check(aggregated == 1, "%s: %d aggregated DMA rows, expected 1" % (name, aggregated), failures)
    ed = collections.Counter((x["timestamp"], x["duration"], int(x["dma_engine"]), int(x["dma_queue"]),
                              x["transfer_size"], x["crc"]) for x in packets)
    dd = collections.Counter(tuple(r) for r in core["dma"])
    check(ed == dd, "%s: DMA packets differ: export-only %s, decoded-only %s" % (
        name, list((ed - dd).elements())[:3], list((dd - ed).elements())[:3]), failures)
    mi = ex["model_info"][0]
    for k, v in core["model_info"].items():
        if k in mi:
            check(mi[k] == v, "%s: model_info.%s export %r decoded %r" % (name, k, mi[k], v), failures)
    check(core["metadata"]["last_hw_timestamp"] == ex["metadata"][0]["last_hw_timestamp"], "%s: last_hw" % name,
          failures)
    check(core["metadata"]["ntff_version"] == ex["metadata"][0]["ntff_version"], "%s: ntff_version" % name, failures)
    x = c["crosscheck"]
    check(x["instr_matched"] == x["instr_export"] == x["instr_decoded"] == len(ex["instruction"]),
          "%s: crosscheck instructions %r" % (name, x), failures)
    check(x["dma_matched"] == x["dma_export"] == x["dma_decoded"] == len(packets) and x["dma_export_aggregated"] == 1
          and x["dma_matched_but_timestamp"] == 0, "%s: crosscheck DMA %r" % (name, x), failures)
    check(x["engine_counts_equal"] == 1 and not x["first_instr_disagreement"] and not x["first_dma_disagreement"],
          "%s: crosscheck %r" % (name, x), failures)
    return len(ex["instruction"]), len(packets), aggregated


def check_unverified(rel, c, failures):
    version, arch, cores = EXPECTED_UNVERIFIED[rel]
    check(c["version"] == version and c["trust"]["architecture"] == arch and c["trust"]["level"] == "unverified",
          "%s: version/trust %r %r" % (rel, c["version"], c["trust"]), failures)
    check(len(c["cores"]) == len(cores), "%s: cores" % rel, failures)
    for core, want in zip(c["cores"], cores):
        name, pid, rule, per_engine, skipped, last_hw, dma, dma_skipped, sems = want
        got = (core["name"], core["physical_id"], core["origin"]["rule"],
               tuple(core["stats"]["instr"]["instr_per_engine"][e] for e in ENGINE_ORDER),
               core["stats"]["instr"]["skipped"], core["metadata"].get("last_hw_timestamp"), len(core["dma"]),
               core["stats"]["dma"]["skipped"], len(core["semaphores"]))
        check(got == want, "%s %s: got %r, expected %r" % (rel, name, got, want), failures)


def check_layout(rel, path, ref, export, failures):
    data = open(path, "rb").read()
    version, _, cores, payload = ref.layout(data)
    sections = sum(sec["size"] for core in cores for sec in core["sections"])
    streams = sum(len(code) for core in cores for code in core["code"].values()) if version >= 6 else 0
    check(sections + streams == len(payload), "%s: sections %d + streams %d != payload %d" % (
        rel, sections, streams, len(payload)), failures)
    if export:
        ex = json.load(open(export))
        code = {"Tensor": 1, "Scalar": 2, "GpSimd": 3, "Vector": 4, "Sync": 5}
        for name, e in code.items():
            top = max(i["pc"] for i in ex["instruction"] if i["subgroup"] == name)
            check(len(cores[0]["slots"][e]) == top + 1, "%s: %s has %d slots, largest exported pc %d" % (
                rel, name, len(cores[0]["slots"][e]), top), failures)
    return sections, streams, len(payload)


def check_capture_span(c, failures):
    spans = {core["physical_id"]: core["metadata"]["last_hw_timestamp"] for core in c["cores"]}
    lines = []
    for pid, want in NC_EXEC_RUNNING.items():
        rel = (spans[pid] - want) / want
        lines.append("core %d: decoded span %d ns, nc_exec_running %d ns (%+.1f %%, tolerance %.0f %%)" % (
            pid, spans[pid], want, 100 * rel, 100 * SPAN_TOLERANCE[pid]))
        check(abs(rel) <= SPAN_TOLERANCE[pid], lines[-1], failures)
    starts = [core["origin"]["floor_ns"] for core in c["cores"]]
    ends = [core["origin"]["floor_ns"] + core["metadata"]["last_hw_timestamp"] for core in c["cores"]]
    union = max(ends) - min(starts)
    rel = (union - NC_EXEC_UNION) / NC_EXEC_UNION
    lines.append("union: decoded %d ns, nc_exec_running %d ns (%+.1f %%)" % (union, NC_EXEC_UNION, 100 * rel))
    check(abs(rel) <= SPAN_TOLERANCE["union"], lines[-1], failures)
    return lines


def main():
    dump, ref = sys.argv[1], sys.argv[2]
    samples = os.environ.get("NL_SAMPLES_DIR", "")
    if not samples or not os.path.isdir(samples):
        print("SKIP: NL_SAMPLES_DIR (%r) is not a directory: no real NTFF samples" % samples)
        return 77
    files = sorted(glob.glob(os.path.join(samples, "*", "*.ntff")) +
                   glob.glob(os.path.join(samples, "*", "*", "*.ntff")))
    if not files:
        print("SKIP: no .ntff under %s" % samples)
        return 77
    import importlib.util
    spec = importlib.util.spec_from_file_location("ref_ntff", ref)
    ref_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref_mod)
    failures = []
    totals = [0, 0, 0]
    for path in files:
        rel = os.path.relpath(path, samples)
        export = path[:-5] + ".json"
        argv = [dump] + (["--export", export] if os.path.exists(export) else []) + [path]
        c = run_json(argv)
        for variant in (["--threads", "1"], ["--chunk", "4096"], ["--chunk", "16", "--threads", "2"]):
            other = run_json([dump] + variant + argv[1:])
            check(other == c, "%s: output differs with %s" % (rel, " ".join(variant)), failures)
        py = run_json(["/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable, ref, path])
        compare_with_reference(rel, c, py, failures)
        sec, st, pay = check_layout(rel, path, ref_mod, export if os.path.exists(export) else None, failures)
        print("%s: payload %d bytes = sections %d + instruction streams %d" % (rel, pay, sec, st))
        if os.path.exists(export):
            n = compare_with_export(rel, c, export, failures)
            totals = [t + k for t, k in zip(totals, n)]
            print("%s: %d/%d instructions, %d/%d DMA packets equal the export (%d aggregated row left out)" % (
                rel, len(c["cores"][0]["instructions"]), n[0], len(c["cores"][0]["dma"]), n[1], n[2]))
        elif rel in EXPECTED_UNVERIFIED:
            check_unverified(rel, c, failures)
            print("%s: v%d %s, unverified; cores %s" % (rel, c["version"], c["trust"]["architecture"], ", ".join(
                "%s %s %d instructions %d DMA" % (k["name"], k["origin"]["rule"], len(k["instructions"]), len(k["dma"]))
                for k in c["cores"])))
        else:
            failures.append("%s: a sample this test does not know; add its expected counts" % rel)
        if rel.startswith("capture/"):
            for line in check_capture_span(c, failures):
                print("  " + line)
    print("export pairs: %d instructions, %d DMA packets, %d aggregated rows" % tuple(totals))
    check(totals == [383, 729, 3], "totals over the three pairs: %r" % totals, failures)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

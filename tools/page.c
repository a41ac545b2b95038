/* page — see page.h. */
#include "page.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Flags jsonrpc.c serialises responses with. */
#define PAGE_DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))

size_t page_budget(const json_t *args, const nl_call *call)
{
    json_t *mb = json_object_get(args, "max_bytes");
    size_t budget = json_is_integer(mb) && json_integer_value(mb) > 0 ? (size_t)json_integer_value(mb) : PAGE_BUDGET_DEFAULT;
    if (call && call->byte_budget && call->byte_budget < budget)
        budget = call->byte_budget;
    return budget;
}

size_t page_json_size(const json_t *v)
{
    size_t n = json_dumpb(v, NULL, 0, PAGE_DUMP_FLAGS);
    return n;
}

void page_meter_init(page_meter *pm, size_t limit, const json_t *base)
{
    pm->limit = limit;
    pm->used = page_json_size(base) + PAGE_TEXT_MAX + PAGE_WRAPPER_BYTES;
}

bool page_meter_take(page_meter *pm, const json_t *item)
{
    size_t n = page_json_size(item) + 1;
    if (pm->used + n > pm->limit)
        return false;
    pm->used += n;
    return true;
}

bool page_meter_take_member(page_meter *pm, const char *key, const json_t *value)
{
    json_t *k = json_string(key);
    size_t n = page_json_size(k) + page_json_size(value) + 2;
    json_decref(k);
    if (pm->used + n > pm->limit)
        return false;
    pm->used += n;
    return true;
}

size_t page_meter_fill(page_meter *pm, json_t *arr, size_t n, page_item_fn item, void *ctx, size_t *first_size)
{
    size_t shown = 0;
    for (; shown < n; shown++) {
        json_t *row = item(ctx, shown);
        if (!page_meter_take(pm, row)) {
            if (!shown)
                *first_size = page_json_size(row);
            json_decref(row);
            break;
        }
        json_array_append_new(arr, row);
    }
    return shown;
}

bool page_fits(const json_t *structured, const char *text, size_t budget, size_t *size)
{
    json_t *t = json_string(text ? text : "");
    *size = page_json_size(structured) + (t ? page_json_size(t) : 0) + PAGE_WRAPPER_BYTES;
    json_decref(t);
    return *size <= budget;
}

uint64_t page_fingerprint(const char *text)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return h;
}

void page_cursor_tag(char *out, size_t cap, const char *prefix, uint64_t fingerprint)
{
    snprintf(out, cap, "%s%016llx", prefix, (unsigned long long)fingerprint);
}

json_t *page_string(const char *s)
{
    json_t *v = json_string(s ? s : "");
    if (v)
        return v;
    char *copy = strdup(s);
    if (!copy)
        return json_string("");
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    v = json_string(copy);
    free(copy);
    return v;
}

static void page_copy_keys(json_t *obj, const kvlist *rec, const char *const *keys)
{
    for (size_t i = 0; rec && keys[i]; i++) {
        const kvlist_entry *e = kvlist_get(rec, keys[i]);
        if (!e)
            continue;
        if (e->kind == KVLIST_STRING)
            json_object_set_new(obj, keys[i], page_string(kvlist_text_str(rec, e)));
        else if (e->kind == KVLIST_INT)
            json_object_set_new(obj, keys[i], json_integer(e->i));
    }
}

static json_t *page_versions(const device_model *m)
{
    static const char *const meta_keys[] = {"ntff_version", "data_version", "profile_schema_version", NULL};
    static const char *const sum_keys[] = {"runtime_version", "compiler_version", NULL};
    static const char *const info_keys[] = {"profiler_version", NULL};
    const kvlist *meta = device_model_record_get(m, DEVICE_MODEL_METADATA);
    json_t *v = json_object();
    page_copy_keys(v, meta, meta_keys);
    page_copy_keys(v, device_model_record_get(m, DEVICE_MODEL_SUMMARY), sum_keys);
    for (size_t i = 0; sum_keys[i]; i++) /* neuron-explorer keeps the versions in Metadata, not Summary */
        if (!json_object_get(v, sum_keys[i]))
            page_copy_keys(v, meta, (const char *const[]){sum_keys[i], NULL});
    page_copy_keys(v, device_model_record_get(m, DEVICE_MODEL_PROFILE_INFO), info_keys);
    return v;
}

json_t *page_envelope(const nl_select *sel, json_t *units_take)
{
    json_t *out = json_object();
    json_object_set_new(out, "profile", shape_profile_label(sel->cat, sel->profile));
    json_object_set_new(out, "units", units_take);
    json_t *prov = shape_profile_provenance(sel->cat, sel->profile);
    if (sel->model && sel->decoded) {
        nl_select_model_provenance(sel, prov);
    } else if (sel->model) { /* this key order, as results always had it */
        json_object_set_new(prov, "export_file", json_string(sel->export_path));
        json_object_set_new(prov, "export", page_versions(nl_model_ref_device(sel->model)));
        json_object_set_new(prov, "model", json_pack("{s:s, s:f}", "cache", nl_model_ref_was_cached(sel->model) ? "warm" : "cold",
                                                     "load_ms", round(nl_model_ref_load_ms(sel->model) * 1000) / 1000));
    }
    json_object_set_new(out, "provenance", prov);
    json_object_set_new(out, "data_quality", nl_select_quality(sel));
    return out;
}

static bool page_mentions_dge(const char *msg)
{
    return strstr(msg, "dge") || strstr(msg, "DGE") || strstr(msg, "dynamic DMA metadata");
}

void page_quality_dma(const device_model *m, uint64_t unknown_variable, uint64_t packets, json_t *arr)
{
    static const char *const fix = "Recapture with NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 (or --enable-dge-notifs); "
                                   "watch for notification-queue overflow (error 1204) at full-model scale.";
    const table *t = device_model_table_get(m, DEVICE_MODEL_WARNINGS);
    bool warned = false;
    for (size_t r = 0; t && r < table_rows(t) && !warned; r++) {
        const char *msg = device_model_str(m, table_str(t, DM_WARN_MESSAGE, r), NULL);
        if (msg && page_mentions_dge(msg)) {
            char problem[512];
            snprintf(problem, sizeof problem, "DMA values may be inaccurate; the export warns: %s", msg);
            json_t *q = shape_quality("warning", problem, fix, NULL);
            json_object_set_new(q, "code", json_string("dge_notifications_missing"));
            json_array_append_new(arr, q);
            warned = true;
        }
    }
    if (packets && unknown_variable * 2 > packets) {
        char problem[256];
        snprintf(problem, sizeof problem, "%llu of %llu DMA packets have variable \"unknown\": DMA attribution to "
                 "tensors is unreliable", (unsigned long long)unknown_variable, (unsigned long long)packets);
        json_t *q = shape_quality("warning", problem, fix, NULL);
        json_object_set_new(q, "code", json_string("dma_variables_unknown"));
        json_array_append_new(arr, q);
    }
}

void page_quality_wait(json_t *arr)
{
    json_t *q = shape_quality("info", "evt_wait_time double-counts across engines (each waiting engine reports the "
                              "same stall): rank by it, never add it up across engines", NULL, NULL);
    json_object_set_new(q, "code", json_string("evt_wait_double_counts"));
    json_array_append_new(arr, q);
}

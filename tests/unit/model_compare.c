/* model_compare — see model_compare.h. */
#include "model_compare.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int mc_fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int mc_fail(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return 1;
}

static int mc_strings(const device_model *a, const device_model *b, char *why, size_t cap)
{
    uint32_t n = strtab_count(device_model_strings(a));
    if (n != strtab_count(device_model_strings(b)))
        return mc_fail(why, cap, "string count %u != %u", n, strtab_count(device_model_strings(b)));
    for (uint32_t id = 0; id < n; id++) {
        size_t la, lb;
        const char *sa = device_model_str(a, id, &la), *sb = device_model_str(b, id, &lb);
        if (la != lb || memcmp(sa, sb, la) != 0)
            return mc_fail(why, cap, "string id %u: '%.40s' != '%.40s'", id, sa, sb);
    }
    return 0;
}

static int mc_table(const device_model *a, const device_model *b, device_model_table which, char *why, size_t cap)
{
    const table *ta = device_model_table_get(a, which), *tb = device_model_table_get(b, which);
    const char *name = device_model_table_name(which);
    size_t rows = table_rows(ta);
    if (rows != table_rows(tb))
        return mc_fail(why, cap, "%s: %zu rows != %zu", name, rows, table_rows(tb));
    for (uint32_t c = 0; c < table_ncols(ta); c++) {
        const table_column *col = table_column_at(ta, c);
        if (col->kind == TABLE_INT) {
            int64_t mina, maxa, minb, maxb;
            table_int_range(ta, c, &mina, &maxa);
            table_int_range(tb, c, &minb, &maxb);
            if (mina != minb || maxa != maxb)
                return mc_fail(why, cap, "%s.%s: range differs", name, col->name);
        }
        if (col->kind == TABLE_STR) {
            uint32_t n = table_dict_size(ta, c);
            if (n != table_dict_size(tb, c))
                return mc_fail(why, cap, "%s.%s: %u distinct != %u", name, col->name, n, table_dict_size(tb, c));
            for (uint32_t k = 0; k < n; k++)
                if (table_dict_id(ta, c, k) != table_dict_id(tb, c, k))
                    return mc_fail(why, cap, "%s.%s: code %u differs", name, col->name, k);
        }
        table_value va[256], vb[256];
        for (size_t r = 0; r < rows; r += 256) {
            size_t k = rows - r < 256 ? rows - r : 256;
            table_read(ta, c, r, k, va);
            table_read(tb, c, r, k, vb);
            for (size_t i = 0; i < k; i++) {
                int same = col->kind == TABLE_STR
                               ? va[i].s == vb[i].s && table_code(ta, c, r + i) == table_code(tb, c, r + i)
                               : va[i].u == vb[i].u;
                if (!same)
                    return mc_fail(why, cap, "%s[%zu].%s differs", name, r + i, col->name);
            }
        }
    }
    return 0;
}

static int mc_record(const device_model *a, const device_model *b, device_model_record which, char *why, size_t cap)
{
    const kvlist *la = device_model_record_get(a, which), *lb = device_model_record_get(b, which);
    const char *name = device_model_record_name(which);
    if (!la || !lb)
        return la == lb ? 0 : mc_fail(why, cap, "record %s present in only one model", name);
    if (kvlist_count(la) != kvlist_count(lb))
        return mc_fail(why, cap, "record %s: %zu entries != %zu", name, kvlist_count(la), kvlist_count(lb));
    for (size_t i = 0; i < kvlist_count(la); i++) {
        const kvlist_entry *ea = kvlist_at(la, i), *eb = kvlist_at(lb, i);
        if (ea->key != eb->key || ea->text != eb->text || ea->kind != eb->kind || ea->i != eb->i || ea->u != eb->u ||
            memcmp(&ea->num, &eb->num, sizeof ea->num) != 0)
            return mc_fail(why, cap, "record %s entry %zu differs", name, i);
    }
    return 0;
}

int model_compare(const device_model *a, const device_model *b, char *why, size_t cap)
{
    if (mc_strings(a, b, why, cap))
        return 1;
    for (int t = 0; t < DEVICE_MODEL_TABLE_COUNT; t++)
        if (mc_table(a, b, (device_model_table)t, why, cap))
            return 1;
    for (int r = 0; r < DEVICE_MODEL_RECORD_COUNT; r++)
        if (mc_record(a, b, (device_model_record)r, why, cap))
            return 1;
    size_t n = device_model_note_count(a);
    if (n != device_model_note_count(b))
        return mc_fail(why, cap, "%zu notes != %zu", n, device_model_note_count(b));
    for (size_t i = 0; i < n; i++) {
        const device_model_note *na = device_model_note_at(a, i), *nb = device_model_note_at(b, i);
        if (na->kind != nb->kind || na->scope != nb->scope || na->name != nb->name || na->count != nb->count)
            return mc_fail(why, cap, "note %zu differs (kind %d/%d, name %u/%u, count %llu/%llu)", i, (int)na->kind,
                           (int)nb->kind, na->name, nb->name, (unsigned long long)na->count,
                           (unsigned long long)nb->count);
    }
    int fa, fb;
    if (device_model_time_origin(a, &fa) != device_model_time_origin(b, &fb) || fa != fb)
        return mc_fail(why, cap, "time origin differs");
    return 0;
}

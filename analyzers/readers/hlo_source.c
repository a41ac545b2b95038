/* hlo_source — see hlo_source.h. Tokenizes hlo_attrs with json_stream (the streaming tokenizer the JSON
 * export reader uses), keeping only the depth-2 source_file / source_line values of each element. */
#include "hlo_source.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"

/* Longest source_line text kept (a line number; longer values are not line numbers). */
#define HLO_SOURCE_LINE_MAX 23u

struct hlo_source {
    strtab *strings;  /* borrowed: where locations are interned */
    json_stream *js;  /* reset per text */
    char *buf;        /* "file:line" being built */
    size_t buf_cap;
    uint32_t *memo;   /* [attrs id] = location id + 1; 0 = not derived yet */
    size_t memo_cap;
};

hlo_source *hlo_source_new(strtab *strings, nl_error *err)
{
    hlo_source *h = calloc(1, sizeof *h);
    if (!h || !(h->js = json_stream_new(NULL, err))) {
        free(h);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for the hlo_attrs source deriver");
        return NULL;
    }
    h->strings = strings;
    return h;
}

void hlo_source_free(hlo_source *h)
{
    if (!h)
        return;
    json_stream_free(h->js);
    free(h->buf);
    free(h->memo);
    free(h);
}

static int hs_reserve(hlo_source *h, size_t need, nl_error *err)
{
    if (need <= h->buf_cap)
        return 0;
    size_t cap = h->buf_cap ? h->buf_cap : 256;
    while (cap < need)
        cap *= 2;
    char *b = realloc(h->buf, cap);
    if (!b)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory parsing hlo_attrs");
    h->buf = b;
    h->buf_cap = cap;
    return 0;
}

static bool hs_key_is(const json_stream_token *t, const char *key)
{
    size_t n = strlen(key);
    return t->len == n && memcmp(t->str, key, n) == 0;
}

/* Parse one text; *src = interned location or 0. */
static int hs_parse(hlo_source *h, const char *text, size_t len, uint32_t *src, nl_error *err)
{
    *src = 0;
    json_stream_reset(h->js);
    if (json_stream_feed(h->js, text, len, err) != 0)
        return -1;
    json_stream_finish(h->js);
    size_t file_len = 0;
    char line[HLO_SOURCE_LINE_MAX + 1] = "";
    int want = 0; /* the value after this key: 1 = source_file, 2 = source_line */
    nl_error ignored;
    json_stream_token t;
    while (json_stream_next(h->js, &t, &ignored) == JSON_STREAM_TOKEN) {
        if (t.depth == 1 && t.kind == JSON_STREAM_OBJECT_END) {
            if (file_len && line[0] && strcmp(line, "0") != 0) {
                int n = snprintf(h->buf + file_len, sizeof line + 1, ":%s", line);
                return strtab_intern(h->strings, h->buf, file_len + (size_t)n, src, err);
            }
            file_len = 0;
            line[0] = '\0';
        }
        if (t.depth != 2)
            continue;
        if (t.kind == JSON_STREAM_KEY) {
            want = hs_key_is(&t, "source_file") ? 1 : hs_key_is(&t, "source_line") ? 2 : 0;
            continue;
        }
        if (want == 1 && t.kind == JSON_STREAM_STRING) {
            if (hs_reserve(h, t.len + sizeof line + 1, err) != 0)
                return -1;
            memcpy(h->buf, t.str, t.len);
            file_len = t.len;
        } else if (want == 2 && (t.kind == JSON_STREAM_STRING || t.kind == JSON_STREAM_INT) &&
                   t.len <= HLO_SOURCE_LINE_MAX) {
            for (size_t i = 0; i < t.len; i++) /* control bytes never reach a location */
                line[i] = (unsigned char)t.str[i] < 0x20 ? '?' : t.str[i];
            line[t.len] = '\0';
        }
        want = 0;
    }
    return 0;
}

static int hs_memo_put(hlo_source *h, uint32_t attrs, uint32_t src, nl_error *err)
{
    if (attrs >= h->memo_cap) {
        size_t cap = h->memo_cap ? h->memo_cap : 256;
        while (cap <= attrs)
            cap *= 2;
        uint32_t *v = realloc(h->memo, cap * sizeof *v);
        if (!v)
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory caching hlo_attrs sources");
        memset(v + h->memo_cap, 0, (cap - h->memo_cap) * sizeof *v);
        h->memo = v;
        h->memo_cap = cap;
    }
    h->memo[attrs] = src + 1;
    return 0;
}

int hlo_source_of(hlo_source *h, uint32_t attrs, uint32_t *src, nl_error *err)
{
    *src = 0;
    if (!attrs)
        return 0;
    if (attrs < h->memo_cap && h->memo[attrs]) {
        *src = h->memo[attrs] - 1;
        return 0;
    }
    size_t len;
    const char *text = strtab_str(h->strings, attrs, &len);
    if (hs_parse(h, text, len, src, err) != 0)
        return -1;
    return hs_memo_put(h, attrs, *src, err);
}

/* json_kv — see json_kv_internal.h. A token-kind → kvlist-kind switch; nothing else. */
#include "json_kv_internal.h"

int json_kv_set(kvlist *l, strtab *names, uint32_t key, const json_stream_token *tok, nl_error *err)
{
    kvlist_entry e = {.key = key};
    switch (tok->kind) {
    case JSON_STREAM_STRING:
        e.kind = KVLIST_STRING;
        if (strtab_intern(names, tok->str, tok->len, &e.text, err) != 0)
            return -1;
        break;
    case JSON_STREAM_INT:
        e.kind = KVLIST_INT;
        e.i = tok->i;
        e.u = (uint64_t)tok->i;
        e.num = tok->d;
        break;
    case JSON_STREAM_UINT:
        e.kind = KVLIST_UINT;
        e.u = tok->u;
        e.num = tok->d;
        break;
    case JSON_STREAM_DOUBLE:
        e.kind = KVLIST_DOUBLE;
        e.num = tok->d;
        break;
    case JSON_STREAM_TRUE:
    case JSON_STREAM_FALSE:
        e.kind = KVLIST_BOOL;
        e.i = tok->kind == JSON_STREAM_TRUE;
        e.u = (uint64_t)e.i;
        e.num = (double)e.i;
        break;
    case JSON_STREAM_NULL: e.kind = KVLIST_NULL; break;
    default: e.kind = KVLIST_COMPOUND; break;
    }
    if ((e.kind == KVLIST_INT || e.kind == KVLIST_UINT || e.kind == KVLIST_DOUBLE) &&
        strtab_intern(names, tok->str, tok->len, &e.text, err) != 0)
        return -1;
    return kvlist_set(l, &e, err);
}

/* pickle — see pickle.h. A pickle machine that never calls anything, run twice over the same bytes.
 *
 * Byte format (Python's Lib/pickletools.py is the reference): a sequence of opcodes, each one byte
 * followed by its argument, ending at STOP ('.'). Integers in arguments are little-endian unless said.
 *
 *   opcode               byte  argument                        effect on the stack
 *   PROTO                0x80  u8 protocol (2..5 accepted)      —
 *   FRAME                0x95  u64 frame length                 — (a read-ahead hint; not needed here)
 *   STOP                 '.'   —                                pop the result; the pickle ends
 *   MARK                 '('   —                                push a mark
 *   EMPTY_DICT/LIST      '}' ']'                                push a new empty dict / list
 *   EMPTY_TUPLE          ')'                                    push ()
 *   TUPLE                't'   —                                items above the topmost mark → one tuple
 *   TUPLE1/2/3           0x85 0x86 0x87                          the top 1/2/3 items → one tuple
 *   APPEND / APPENDS     'a' 'e'                                append the top item / the items above the
 *                                                               mark to the list below it
 *   SETITEM / SETITEMS   's' 'u'                                set key, value / the pairs above the mark
 *                                                               in the dict below them
 *   NONE NEWTRUE NEWFALSE 'N' 0x88 0x89                          push None / True / False
 *   BININT1 BININT2 BININT 'K' 'M' 'J'  u8 / u16 / i32           push an int
 *   LONG1 / LONG4        0x8a 0x8b  u8 n / i32 n, then n bytes   push an int (two's complement, LE)
 *   BINFLOAT             'G'   8 bytes IEEE 754, big-endian     push a float
 *   SHORT_BINUNICODE     0x8c  u8 n, n bytes UTF-8              push a str
 *   BINUNICODE / 8       'X' 0x8d  u32 n / u64 n, n bytes        push a str
 *   SHORT_BINBYTES BINBYTES BINBYTES8 BYTEARRAY8  'C' 'B' 0x8e 0x96  u8 / u32 / u64 / u64 n, n bytes
 *   MEMOIZE              0x94  —                                memo[len(memo)] = top
 *   BINPUT LONG_BINPUT PUT 'q' 'r' 'p'  u8 / u32 / decimal text + '\n'   memo[i] = top
 *   BINGET LONG_BINGET GET 'h' 'j' 'g'  u8 / u32 / decimal text + '\n'   push memo[i]
 *
 * What the machine does not do: call or import anything (those opcodes are refused by name), build sets,
 * or accept the other text opcodes of protocol 0. Python's pickler writes a container as "create it,
 * memoize it, then fill it in batches of at most 1000 items (MARK ... APPENDS/SETITEMS, or one item +
 * APPEND/SETITEM)", and the container itself reaches its parent only after its own content, so where a
 * new dict or list belongs is known only when it is consumed. [[], [x]] and [[x]] begin with the same
 * three opcodes (EMPTY_LIST MARK EMPTY_LIST EMPTY_LIST vs EMPTY_LIST EMPTY_LIST ... APPEND); deciding
 * there would need to look past the whole second list.
 *
 * Pass 1 (scan) runs the machine on item kinds only and, for each container in creation order, records in
 * 2 bits which opcode consumed it: APPEND (the parent is the item right below it), SETITEM (two below: the
 * parent, then the key), a batch (the item below the topmost mark), or STOP (the root). It also sets one
 * bit per memo index that is ever read back, and checks the structure (targets, marks, memo indices).
 * Pass 2 (deliver) runs the machine on values. It keeps a chain of open delivered containers; when a
 * container is created its recorded code names its parent on the stack: the chain is closed down to that
 * parent (their `end` is delivered), the items pending since the last delivery are delivered as the
 * parent's items, and the new container begins. Consuming opcodes do the same for their target. Items are
 * delivered in stack order, so events follow document order; a scalar waits on the stack only until the
 * next container or consuming opcode. Memo values are kept only for the indices pass 1 saw read back
 * (strings as strtab ids, tuples copied, containers as a record of the tag their `end` set).
 * Pass 2 trusts nothing from pass 1: every structural check runs again, and the counts of both passes must
 * agree at the end (or the input changed between them). */
#include "pickle.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdfile.h"

/* ---- opcodes ------------------------------------------------------------------------------------------ */

enum {
    PK_MARK_OP = '(', PK_STOP = '.', PK_POP = '0', PK_POP_MARK = '1', PK_DUP = '2', PK_FLOAT = 'F',
    PK_INT = 'I', PK_BININT = 'J', PK_BININT1 = 'K', PK_LONG = 'L', PK_BININT2 = 'M', PK_NONE = 'N',
    PK_PERSID = 'P', PK_BINPERSID = 'Q', PK_REDUCE = 'R', PK_STRING = 'S', PK_BINSTRING = 'T',
    PK_SHORT_BINSTRING = 'U', PK_UNICODE = 'V', PK_BINUNICODE = 'X', PK_APPEND = 'a', PK_BUILD = 'b',
    PK_GLOBAL = 'c', PK_DICT = 'd', PK_EMPTY_DICT = '}', PK_APPENDS = 'e', PK_GET = 'g', PK_BINGET = 'h',
    PK_INST = 'i', PK_LONG_BINGET = 'j', PK_LIST = 'l', PK_EMPTY_LIST = ']', PK_OBJ = 'o', PK_PUT = 'p',
    PK_BINPUT = 'q', PK_LONG_BINPUT = 'r', PK_SETITEM = 's', PK_TUPLE = 't', PK_EMPTY_TUPLE = ')',
    PK_SETITEMS = 'u', PK_BINFLOAT = 'G', PK_PROTO = 0x80, PK_NEWOBJ = 0x81, PK_EXT1 = 0x82,
    PK_EXT2 = 0x83, PK_EXT4 = 0x84, PK_TUPLE1 = 0x85, PK_TUPLE2 = 0x86, PK_TUPLE3 = 0x87, PK_NEWTRUE = 0x88,
    PK_NEWFALSE = 0x89, PK_LONG1 = 0x8a, PK_LONG4 = 0x8b, PK_BINBYTES = 'B', PK_SHORT_BINBYTES = 'C',
    PK_SHORT_BINUNICODE = 0x8c, PK_BINUNICODE8 = 0x8d, PK_BINBYTES8 = 0x8e, PK_EMPTY_SET = 0x8f,
    PK_ADDITEMS = 0x90, PK_FROZENSET = 0x91, PK_NEWOBJ_EX = 0x92, PK_STACK_GLOBAL = 0x93, PK_MEMOIZE = 0x94,
    PK_FRAME = 0x95, PK_BYTEARRAY8 = 0x96, PK_NEXT_BUFFER = 0x97, PK_READONLY_BUFFER = 0x98,
};

/* How the reader treats an opcode. */
enum { PK_CLS_NONE = 0, PK_CLS_DATA, PK_CLS_CALLS, PK_CLS_UNSUPPORTED };

typedef struct pk_opinfo {
    const char *name;
    uint8_t cls;
} pk_opinfo;

static const pk_opinfo pk_ops[256] = {
    [PK_MARK_OP] = {"MARK", PK_CLS_DATA}, [PK_STOP] = {"STOP", PK_CLS_DATA},
    [PK_POP] = {"POP", PK_CLS_UNSUPPORTED}, [PK_POP_MARK] = {"POP_MARK", PK_CLS_UNSUPPORTED},
    [PK_DUP] = {"DUP", PK_CLS_UNSUPPORTED}, [PK_FLOAT] = {"FLOAT", PK_CLS_UNSUPPORTED},
    [PK_INT] = {"INT", PK_CLS_UNSUPPORTED}, [PK_BININT] = {"BININT", PK_CLS_DATA},
    [PK_BININT1] = {"BININT1", PK_CLS_DATA}, [PK_LONG] = {"LONG", PK_CLS_UNSUPPORTED},
    [PK_BININT2] = {"BININT2", PK_CLS_DATA}, [PK_NONE] = {"NONE", PK_CLS_DATA},
    [PK_PERSID] = {"PERSID", PK_CLS_CALLS}, [PK_BINPERSID] = {"BINPERSID", PK_CLS_CALLS},
    [PK_REDUCE] = {"REDUCE", PK_CLS_CALLS}, [PK_STRING] = {"STRING", PK_CLS_UNSUPPORTED},
    [PK_BINSTRING] = {"BINSTRING", PK_CLS_UNSUPPORTED}, [PK_SHORT_BINSTRING] = {"SHORT_BINSTRING", PK_CLS_UNSUPPORTED},
    [PK_UNICODE] = {"UNICODE", PK_CLS_UNSUPPORTED}, [PK_BINUNICODE] = {"BINUNICODE", PK_CLS_DATA},
    [PK_APPEND] = {"APPEND", PK_CLS_DATA}, [PK_BUILD] = {"BUILD", PK_CLS_CALLS},
    [PK_GLOBAL] = {"GLOBAL", PK_CLS_CALLS}, [PK_DICT] = {"DICT", PK_CLS_UNSUPPORTED},
    [PK_EMPTY_DICT] = {"EMPTY_DICT", PK_CLS_DATA}, [PK_APPENDS] = {"APPENDS", PK_CLS_DATA},
    [PK_GET] = {"GET", PK_CLS_DATA}, [PK_BINGET] = {"BINGET", PK_CLS_DATA},
    [PK_INST] = {"INST", PK_CLS_CALLS}, [PK_LONG_BINGET] = {"LONG_BINGET", PK_CLS_DATA},
    [PK_LIST] = {"LIST", PK_CLS_UNSUPPORTED}, [PK_EMPTY_LIST] = {"EMPTY_LIST", PK_CLS_DATA},
    [PK_OBJ] = {"OBJ", PK_CLS_CALLS}, [PK_PUT] = {"PUT", PK_CLS_DATA},
    [PK_BINPUT] = {"BINPUT", PK_CLS_DATA}, [PK_LONG_BINPUT] = {"LONG_BINPUT", PK_CLS_DATA},
    [PK_SETITEM] = {"SETITEM", PK_CLS_DATA}, [PK_TUPLE] = {"TUPLE", PK_CLS_DATA},
    [PK_EMPTY_TUPLE] = {"EMPTY_TUPLE", PK_CLS_DATA}, [PK_SETITEMS] = {"SETITEMS", PK_CLS_DATA},
    [PK_BINFLOAT] = {"BINFLOAT", PK_CLS_DATA}, [PK_PROTO] = {"PROTO", PK_CLS_DATA},
    [PK_NEWOBJ] = {"NEWOBJ", PK_CLS_CALLS}, [PK_EXT1] = {"EXT1", PK_CLS_CALLS},
    [PK_EXT2] = {"EXT2", PK_CLS_CALLS}, [PK_EXT4] = {"EXT4", PK_CLS_CALLS},
    [PK_TUPLE1] = {"TUPLE1", PK_CLS_DATA}, [PK_TUPLE2] = {"TUPLE2", PK_CLS_DATA},
    [PK_TUPLE3] = {"TUPLE3", PK_CLS_DATA}, [PK_NEWTRUE] = {"NEWTRUE", PK_CLS_DATA},
    [PK_NEWFALSE] = {"NEWFALSE", PK_CLS_DATA}, [PK_LONG1] = {"LONG1", PK_CLS_DATA},
    [PK_LONG4] = {"LONG4", PK_CLS_DATA}, [PK_BINBYTES] = {"BINBYTES", PK_CLS_DATA},
    [PK_SHORT_BINBYTES] = {"SHORT_BINBYTES", PK_CLS_DATA}, [PK_SHORT_BINUNICODE] = {"SHORT_BINUNICODE", PK_CLS_DATA},
    [PK_BINUNICODE8] = {"BINUNICODE8", PK_CLS_DATA}, [PK_BINBYTES8] = {"BINBYTES8", PK_CLS_DATA},
    [PK_EMPTY_SET] = {"EMPTY_SET", PK_CLS_UNSUPPORTED}, [PK_ADDITEMS] = {"ADDITEMS", PK_CLS_UNSUPPORTED},
    [PK_FROZENSET] = {"FROZENSET", PK_CLS_UNSUPPORTED}, [PK_NEWOBJ_EX] = {"NEWOBJ_EX", PK_CLS_CALLS},
    [PK_STACK_GLOBAL] = {"STACK_GLOBAL", PK_CLS_CALLS}, [PK_MEMOIZE] = {"MEMOIZE", PK_CLS_DATA},
    [PK_FRAME] = {"FRAME", PK_CLS_DATA}, [PK_BYTEARRAY8] = {"BYTEARRAY8", PK_CLS_DATA},
    [PK_NEXT_BUFFER] = {"NEXT_BUFFER", PK_CLS_CALLS}, [PK_READONLY_BUFFER] = {"READONLY_BUFFER", PK_CLS_CALLS},
};

const char *pickle_opcode_name(uint8_t op)
{
    return pk_ops[op].name;
}

const char *pickle_kind_name(pickle_kind k)
{
    switch (k) {
    case PICKLE_NONE: return "none";
    case PICKLE_BOOL: return "bool";
    case PICKLE_INT: return "int";
    case PICKLE_BIGINT: return "bigint";
    case PICKLE_FLOAT: return "float";
    case PICKLE_STR: return "str";
    case PICKLE_BYTES: return "bytes";
    case PICKLE_DICT: return "dict";
    case PICKLE_LIST: return "list";
    case PICKLE_TUPLE: return "tuple";
    }
    return "?";
}

/* Digits of a PUT/GET text argument (a memo index below 2^31 has at most 10). */
#define PK_TEXT_ARG_MAX 12u

/* One decoded opcode. `data` points into the caller's bytes and is valid while the opcode executes. */
typedef struct pk_op {
    uint8_t code;
    size_t len;          /* bytes of opcode + argument */
    int64_t i;           /* integer argument (ints, PROTO) */
    uint64_t u;          /* memo index */
    const uint8_t *arg;  /* the fixed-size argument (BINFLOAT's 8 bytes) */
    const uint8_t *data; /* str/bytes/long payload */
    size_t n;            /* payload bytes */
} pk_op;

/* ---- reader state ------------------------------------------------------------------------------------- */

/* Stack item kinds. Pass 1 does not know what a memo read holds (PK_I_VAL). */
enum { PK_I_MARK = 1, PK_I_VAL, PK_I_SCALAR, PK_I_TUPLE, PK_I_REF, PK_I_DICT, PK_I_LIST };

typedef struct pk_item {
    uint8_t kind;       /* PK_I_* */
    uint8_t vkind;      /* SCALAR: pickle_kind */
    uint8_t emitted;    /* delivered (or consumed into a tuple) */
    uint8_t persistent; /* TUPLE: items live in the memo store, not the transient pool */
    uint32_t str;       /* SCALAR STR/BYTES: strtab id */
    uint32_t rec;       /* DICT/LIST: memo record + 1 (0 = not memoized); REF: record index */
    uint32_t count;     /* TUPLE: items */
    union {
        int64_t i;      /* SCALAR BOOL/INT */
        double f;       /* SCALAR FLOAT */
        uint64_t seq;   /* DICT/LIST: creation index */
        size_t start;   /* TUPLE: first item in the pool or store */
    } u;
    int64_t offset;
} pk_item;

/* Where a container went, per creation index (2 bits). */
enum { PK_TO_BELOW = 0, PK_TO_KEY = 1, PK_TO_MARK = 2, PK_TO_ROOT = 3 };

/* A memoized dict or list that is read back: its state and the tag its end set. */
enum { PK_REC_OPEN = 0, PK_REC_CLOSED, PK_REC_SKIPPED };
typedef struct pk_rec {
    uint64_t tag;
    uint8_t state;
    uint8_t kind; /* PK_I_DICT / PK_I_LIST */
} pk_rec;

/* An open delivered container. */
typedef struct pk_open {
    size_t item;     /* its stack index */
    uint64_t nitems; /* items delivered into it */
    uint8_t kind;    /* PK_I_DICT / PK_I_LIST */
    bool skip;       /* the handler skipped it (or an ancestor) */
} pk_open;

/* Counts both passes must agree on. */
typedef struct pk_counts {
    uint64_t ops, containers, memo, gets, bytes;
} pk_counts;

struct pickle_reader {
    strtab *strings;
    pickle_handler h;
    void *ctx;
    const atomic_int *cancel;
    char source[NL_ERROR_PATH_MAX];
    uint32_t depth_max;
    uint64_t string_max;

    int pass;   /* 1 or 2 */
    bool done;  /* STOP executed in this pass */
    bool dead;  /* an error happened */
    int64_t pos; /* absolute offset of the next opcode */
    uint64_t poll;

    /* carry: the start of an opcode split across feeds */
    uint8_t *carry;
    size_t carry_len, carry_cap;
    int64_t carry_off;

    /* the machine */
    pk_item *stk;
    size_t n, cap, pending; /* items below `pending` are delivered (or marks) */
    size_t *marks;
    size_t nmarks, marks_cap;
    pk_open chain[PICKLE_DEPTH_MAX + 1];
    uint32_t depth;

    /* pass 1 → pass 2 */
    uint8_t *codes; /* 2 bits per container */
    size_t codes_cap;
    uint64_t *getbits; /* 1 bit per memo index read back */
    size_t getbits_words;
    uint32_t *getrank; /* pass 2: set bits before each word */

    /* pass 2 values */
    uint64_t seq, memo_len;
    pk_item *memo; /* memo values, indexed by rank */
    uint8_t *memo_set;
    size_t memo_slots;
    pk_rec *recs;
    size_t nrecs, recs_cap;
    pk_item *tpool; /* items of tuples on the stack */
    size_t tpool_n, tpool_cap;
    pk_item *tstore; /* items of memoized tuples */
    size_t tstore_n, tstore_cap;

    pk_counts counts[2];
    int protocol;
    size_t stack_peak, state_bytes;
};

/* ---- small helpers ------------------------------------------------------------------------------------ */

static int pk_fail(pickle_reader *r, nl_error *err, nl_error_code code, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int pk_fail(pickle_reader *r, nl_error *err, nl_error_code code, int64_t off, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->dead = true;
    return nl_error_set(err, code, r->source[0] ? r->source : NULL, off, "%s", msg);
}

static int pk_nomem(pickle_reader *r, nl_error *err, int64_t off, const char *what)
{
    return pk_fail(r, err, NL_ERR_NOMEM, off, "out of memory growing the pickle reader's %s", what);
}

static const char *pk_opname(uint8_t c)
{
    return pk_ops[c].name ? pk_ops[c].name : "?";
}

static uint64_t pk_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < n; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

/* Grow *buf (elements of `size` bytes) to hold `need` elements; doubling. 0 or -1. */
static int pk_grow(pickle_reader *r, void **buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / size)
            return -1;
        nc *= 2;
    }
    void *p = realloc(*buf, nc * size);
    if (!p)
        return -1;
    r->state_bytes += (nc - *cap) * size;
    *buf = p;
    *cap = nc;
    return 0;
}

/* Strict UTF-8 except that encoded surrogates (U+D800..DFFF) pass, as Python's "surrogatepass" decoder
 * that unpickles str accepts them. 1 when valid. */
static bool pk_utf8_ok(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint32_t cp, min;
        if (c >= 0xc2 && c <= 0xdf) {
            k = 1, cp = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            k = 2, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i <= k)
            return false;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff)
            return false;
        i += k + 1;
    }
    return true;
}

/* ---- decoding ----------------------------------------------------------------------------------------- */

/* Parse the decimal text argument of PUT/GET at p[1..n). 1 ok, 0 need more, -1 error. */
static int pk_text_arg(pickle_reader *r, const uint8_t *p, size_t n, pk_op *op, size_t *need, nl_error *err)
{
    size_t lim = n < 1 + PK_TEXT_ARG_MAX + 1 ? n : 1 + PK_TEXT_ARG_MAX + 1;
    for (size_t k = 1; k < lim; k++) {
        if (p[k] != '\n')
            continue;
        uint64_t v = 0;
        if (k == 1)
            break;
        for (size_t j = 1; j < k; j++) {
            if (p[j] < '0' || p[j] > '9')
                return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: memo index '%.*s' is not a "
                               "decimal number", pk_opname(p[0]), (long long)r->pos, (int)(k - 1), (const char *)p + 1);
            v = v * 10 + (uint64_t)(p[j] - '0');
        }
        op->u = v;
        op->len = k + 1;
        return 1;
    }
    if (n < 1 + PK_TEXT_ARG_MAX + 1) {
        *need = n + 1;
        return 0;
    }
    return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: expected a memo index of at most %u "
                   "digits ended by a newline", pk_opname(p[0]), (long long)r->pos, PK_TEXT_ARG_MAX);
}

/* Decode the opcode at p[0..n), n >= 1, at absolute offset r->pos. 1: *op complete (op->len bytes);
 * 0: *need = bytes needed (> n); -1: error. Lengths are checked against the caps before anything else. */
static int pk_decode(pickle_reader *r, const uint8_t *p, size_t n, pk_op *op, size_t *need, nl_error *err)
{
    uint8_t c = p[0];
    op->code = c;
    op->data = NULL;
    op->n = 0;
    size_t head = 1;      /* fixed part: opcode + fixed-size argument */
    uint64_t body = 0;    /* variable payload after the head */
    const pk_opinfo *info = &pk_ops[c];
    if (info->cls == PK_CLS_CALLS)
        return pk_fail(r, err, NL_ERR_UNSUPPORTED, r->pos, "opcode %s (0x%02x) at byte %lld would import or call "
                       "Python code: refused (neuronlens reads plain data and never runs a pickle)", info->name, c,
                       (long long)r->pos);
    if (info->cls == PK_CLS_UNSUPPORTED)
        return pk_fail(r, err, NL_ERR_UNSUPPORTED, r->pos, "opcode %s (0x%02x) at byte %lld is not supported: this "
                       "reader takes the dicts, lists, tuples, str, bytes and numbers of protocols 2-5",
                       info->name, c, (long long)r->pos);
    if (info->cls == PK_CLS_NONE)
        return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "byte 0x%02x at %lld is not a pickle opcode", c,
                       (long long)r->pos);
    switch (c) {
    case PK_PROTO: case PK_BININT1: case PK_BINPUT: case PK_BINGET: head = 2; break;
    case PK_BININT2: head = 3; break;
    case PK_BININT: case PK_LONG_BINPUT: case PK_LONG_BINGET: head = 5; break;
    case PK_BINFLOAT: case PK_FRAME: head = 9; break;
    case PK_SHORT_BINUNICODE: case PK_SHORT_BINBYTES: case PK_LONG1: head = 2; break;
    case PK_BINUNICODE: case PK_BINBYTES: case PK_LONG4: head = 5; break;
    case PK_BINUNICODE8: case PK_BINBYTES8: case PK_BYTEARRAY8: head = 9; break;
    case PK_PUT: case PK_GET: return pk_text_arg(r, p, n, op, need, err);
    default: head = 1; break;
    }
    if (n < head) {
        *need = head;
        return 0;
    }
    switch (c) {
    case PK_SHORT_BINUNICODE: case PK_SHORT_BINBYTES: case PK_LONG1: body = p[1]; break;
    case PK_BINUNICODE: case PK_BINBYTES: body = pk_le(p + 1, 4); break;
    case PK_BINUNICODE8: case PK_BINBYTES8: case PK_BYTEARRAY8: body = pk_le(p + 1, 8); break;
    case PK_LONG4: {
        int32_t l = (int32_t)(uint32_t)pk_le(p + 1, 4);
        if (l < 0)
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode LONG4 at byte %lld: negative length %ld",
                           (long long)r->pos, (long)l);
        body = (uint64_t)l;
        break;
    }
    default: break;
    }
    if (c == PK_LONG1 || c == PK_LONG4) {
        if (body > PICKLE_LONG_BYTES_MAX)
            return pk_fail(r, err, NL_ERR_LIMIT, r->pos, "opcode %s at byte %lld: an integer of %llu bytes is over "
                           "the %u-byte cap", info->name, (long long)r->pos, (unsigned long long)body,
                           PICKLE_LONG_BYTES_MAX);
    } else if (body > r->string_max) {
        return pk_fail(r, err, NL_ERR_LIMIT, r->pos, "opcode %s at byte %lld: a length of %llu bytes is over the "
                       "%llu-byte cap on one string", info->name, (long long)r->pos, (unsigned long long)body,
                       (unsigned long long)r->string_max);
    }
    if ((uint64_t)(n - head) < body) {
        *need = head + (size_t)body;
        return 0;
    }
    op->len = head + (size_t)body;
    op->arg = p + 1;
    op->data = p + head;
    op->n = (size_t)body;
    switch (c) {
    case PK_PROTO: case PK_BININT1: op->i = p[1]; break;
    case PK_BININT2: op->i = (int64_t)pk_le(p + 1, 2); break;
    case PK_BININT: op->i = (int32_t)(uint32_t)pk_le(p + 1, 4); break;
    case PK_BINPUT: case PK_BINGET: op->u = p[1]; break;
    case PK_LONG_BINPUT: case PK_LONG_BINGET: op->u = pk_le(p + 1, 4); break;
    case PK_FRAME: op->u = pk_le(p + 1, 8); break;
    default: break;
    }
    return 1;
}

/* ---- the stack ---------------------------------------------------------------------------------------- */

/* The stack is full: grow it (never beyond PICKLE_STACK_MAX items). */
static __attribute__((noinline)) pk_item *pk_new_slow(pickle_reader *r, nl_error *err)
{
    if (r->n >= PICKLE_STACK_MAX) {
        pk_fail(r, err, NL_ERR_LIMIT, r->pos, "more than %zu values on the pickle stack at byte %lld",
                (size_t)PICKLE_STACK_MAX, (long long)r->pos);
        return NULL;
    }
    if (pk_grow(r, (void **)&r->stk, &r->cap, r->n + 1, sizeof *r->stk) != 0) {
        pk_nomem(r, err, r->pos, "stack");
        return NULL;
    }
    return &r->stk[r->n++];
}

/* A new top slot, filled in place by the caller (an item built elsewhere and copied in stalls on store
 * forwarding: its fields are written narrow and read back wide); NULL with err set. The peak size is taken
 * when items are popped (pk_pop_to) and at the end. */
static inline pk_item *pk_new(pickle_reader *r, nl_error *err)
{
    if (__builtin_expect(r->n == r->cap, 0))
        return pk_new_slow(r, err);
    return &r->stk[r->n++];
}

static int pk_push_mark(pickle_reader *r, nl_error *err)
{
    if (r->nmarks == r->marks_cap &&
        pk_grow(r, (void **)&r->marks, &r->marks_cap, r->nmarks + 1, sizeof *r->marks) != 0)
        return pk_nomem(r, err, r->pos, "mark stack");
    pk_item *it = pk_new(r, err);
    if (!it)
        return -1;
    *it = (pk_item){.kind = PK_I_MARK, .offset = r->pos};
    r->marks[r->nmarks++] = r->n - 1;
    return 0;
}

/* Pop down to `n` items, releasing the transient tuple pool above the lowest popped tuple. */
static void pk_pop_to(pickle_reader *r, size_t n)
{
    if (r->n > r->stack_peak)
        r->stack_peak = r->n;
    for (size_t k = n; k < r->n; k++) {
        const pk_item *it = &r->stk[k];
        if (it->kind == PK_I_TUPLE && !it->persistent && it->u.start < r->tpool_n) {
            r->tpool_n = it->u.start;
            break;
        }
    }
    r->n = n;
    while (r->nmarks > 0 && r->marks[r->nmarks - 1] >= n)
        r->nmarks--;
    if (r->pending > n)
        r->pending = n;
}

static int pk_top_mark(pickle_reader *r, const pk_op *op, size_t *mark, nl_error *err)
{
    if (r->nmarks == 0)
        return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld needs a MARK on the stack",
                       pk_opname(op->code), (long long)r->pos);
    *mark = r->marks[r->nmarks - 1];
    return 0;
}

static bool pk_is_container(const pk_item *it)
{
    return it->kind == PK_I_DICT || it->kind == PK_I_LIST;
}

/* ---- codes and bits (pass 1 writes, pass 2 reads) ----------------------------------------------------- */

static int pk_code_room(pickle_reader *r, uint64_t seq, nl_error *err)
{
    size_t byte = (size_t)(seq >> 2);
    if (byte < r->codes_cap)
        return 0;
    size_t old = r->codes_cap;
    if (pk_grow(r, (void **)&r->codes, &r->codes_cap, byte + 1, 1) != 0)
        return pk_nomem(r, err, r->pos, "container index");
    memset(r->codes + old, 0, r->codes_cap - old);
    return 0;
}

static void pk_code_set(pickle_reader *r, uint64_t seq, unsigned code)
{
    uint8_t *b = &r->codes[seq >> 2];
    unsigned sh = (unsigned)(seq & 3) * 2;
    *b = (uint8_t)((*b & ~(3u << sh)) | (code << sh));
}

static unsigned pk_code_get(const pickle_reader *r, uint64_t seq)
{
    return (r->codes[seq >> 2] >> ((seq & 3) * 2)) & 3u;
}

static bool pk_getbit(const pickle_reader *r, uint64_t idx)
{
    size_t w = (size_t)(idx >> 6);
    return w < r->getbits_words && (r->getbits[w] >> (idx & 63)) & 1;
}

/* Set bits of x (SWAR: the build targets baseline x86-64, where __builtin_popcountll is a libgcc call). */
static inline unsigned pk_popcount(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

static size_t pk_getrank(const pickle_reader *r, uint64_t idx)
{
    size_t w = (size_t)(idx >> 6);
    uint64_t below = r->getbits[w] & (((uint64_t)1 << (idx & 63)) - 1);
    return r->getrank[w] + pk_popcount(below);
}

/* ---- delivery (pass 2) -------------------------------------------------------------------------------- */

static pickle_role pk_role(const pk_open *p)
{
    if (!p)
        return PICKLE_ROOT;
    if (p->kind == PK_I_DICT)
        return (p->nitems & 1) ? PICKLE_VALUE : PICKLE_KEY;
    return PICKLE_ITEM;
}

static int pk_handler_failed(pickle_reader *r, nl_error *err)
{
    r->dead = true;
    if (err && err->code == NL_OK)
        nl_error_set(err, NL_ERR_INTERNAL, r->source[0] ? r->source : NULL, r->pos,
                     "the pickle handler failed without saying why");
    return -1;
}

/* The value of a scalar or reference item as delivered. */
static void pk_value_of(const pickle_reader *r, const pk_item *it, pickle_value *v)
{
    memset(v, 0, sizeof *v);
    v->offset = it->offset;
    if (it->kind == PK_I_REF) {
        const pk_rec *rec = &r->recs[it->rec];
        v->kind = rec->kind == PK_I_DICT ? PICKLE_DICT : PICKLE_LIST;
        v->ref = true;
        v->open = rec->state == PK_REC_OPEN;
        v->tag = rec->state == PK_REC_CLOSED ? rec->tag : 0;
        return;
    }
    v->kind = (pickle_kind)it->vkind;
    v->i = it->u.i;
    if (v->kind == PICKLE_FLOAT)
        v->f = it->u.f;
    v->str = it->str;
}

/* Deliver one pending scalar, reference or tuple into p (NULL = the root). */
static int pk_deliver(pickle_reader *r, pk_open *p, pk_item *it, nl_error *err)
{
    pickle_role role = pk_role(p);
    it->emitted = 1;
    if (p)
        p->nitems++;
    if (role == PICKLE_KEY && it->kind == PK_I_REF)
        return pk_fail(r, err, NL_ERR_FORMAT, it->offset, "a dict key at byte %lld is a %s (unhashable)",
                       (long long)it->offset, r->recs[it->rec].kind == PK_I_DICT ? "dict" : "list");
    if (p && p->skip)
        return 0;
    pickle_value v;
    if (it->kind != PK_I_TUPLE) {
        pk_value_of(r, it, &v);
        if (r->h.value(r->ctx, role, &v, err) != 0)
            return pk_handler_failed(r, err);
        return 0;
    }
    memset(&v, 0, sizeof v);
    v.kind = PICKLE_TUPLE;
    v.offset = it->offset;
    int rc = r->h.value(r->ctx, role, &v, err);
    if (rc < 0)
        return pk_handler_failed(r, err);
    if (rc != PICKLE_VISIT)
        return 0;
    const pk_item *items = it->persistent ? r->tstore : r->tpool;
    for (uint32_t k = 0; k < it->count; k++) {
        pk_value_of(r, &items[it->u.start + k], &v);
        if (r->h.value(r->ctx, PICKLE_ITEM, &v, err) != 0)
            return pk_handler_failed(r, err);
    }
    uint64_t tag = 0;
    if (r->h.end(r->ctx, it->offset, &tag, err) != 0)
        return pk_handler_failed(r, err);
    return 0;
}

/* Deliver the `end` of every open container whose stack index is >= `lo`. */
static int pk_close_from(pickle_reader *r, size_t lo, nl_error *err)
{
    while (r->depth > 0 && r->chain[r->depth - 1].item >= lo) {
        pk_open *o = &r->chain[--r->depth];
        uint64_t tag = 0;
        if (!o->skip) {
            if (o->kind == PK_I_DICT && (o->nitems & 1))
                return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "a dict ended at byte %lld with a key and no value",
                               (long long)r->pos);
            if (r->h.end(r->ctx, r->pos, &tag, err) != 0)
                return pk_handler_failed(r, err);
        }
        const pk_item *it = &r->stk[o->item];
        if (it->rec) {
            pk_rec *rec = &r->recs[it->rec - 1];
            rec->state = o->skip ? PK_REC_SKIPPED : PK_REC_CLOSED;
            rec->tag = o->skip ? 0 : tag;
        }
    }
    return 0;
}

static int pk_changed(pickle_reader *r, nl_error *err, const char *what)
{
    return pk_fail(r, err, NL_ERR_IO, r->pos, "the input changed between the two passes of the pickle reader "
                   "(%s at byte %lld)", what, (long long)r->pos);
}

/* Make the container at stack index t the open target: close what is open above it, then deliver the
 * items pending from index `lo` on (marks only below lo) as its items. */
static int pk_settle(pickle_reader *r, size_t t, size_t lo, nl_error *err)
{
    if (pk_close_from(r, t + 1, err) != 0)
        return -1;
    if (r->depth == 0 || r->chain[r->depth - 1].item != t)
        return pk_changed(r, err, "a container's parent is not open");
    pk_open *p = &r->chain[r->depth - 1];
    for (size_t k = r->pending; k < lo && k < r->n; k++)
        if (r->stk[k].kind != PK_I_MARK)
            return pk_changed(r, err, "an item pending outside its parent");
    for (size_t k = r->pending > lo ? r->pending : lo; k < r->n; k++) {
        pk_item *it = &r->stk[k];
        if (it->kind == PK_I_MARK || pk_is_container(it))
            return pk_changed(r, err, "a mark or container pending");
        if (pk_deliver(r, p, it, err) != 0)
            return -1;
    }
    r->pending = r->n;
    return 0;
}

/* Pass 2: a new dict or list (already pushed at the top) begins; `code` says where it goes. */
static int pk_begin(pickle_reader *r, unsigned code, nl_error *err)
{
    size_t c = r->n - 1;
    pk_item *it = &r->stk[c];
    pk_open *p = NULL;
    if (code == PK_TO_ROOT) {
        if (c != 0)
            return pk_changed(r, err, "the root is not alone on the stack");
    } else {
        size_t t;
        if (code == PK_TO_BELOW) {
            if (c < 1)
                return pk_changed(r, err, "no parent below a container");
            t = c - 1;
        } else if (code == PK_TO_KEY) {
            if (c < 2)
                return pk_changed(r, err, "no parent below a dict value");
            t = c - 2;
        } else {
            if (r->nmarks == 0 || r->marks[r->nmarks - 1] == 0)
                return pk_changed(r, err, "no mark below a batch item");
            t = r->marks[r->nmarks - 1] - 1;
        }
        if (!pk_is_container(&r->stk[t]))
            return pk_changed(r, err, "a container's parent is not a dict or list");
        r->n--; /* settle the items before the new container */
        int rc = pk_settle(r, t, code == PK_TO_MARK ? t + 2 : t + 1, err);
        r->n++;
        if (rc != 0)
            return -1;
        p = &r->chain[r->depth - 1];
    }
    pickle_role role = pk_role(p);
    if (role == PICKLE_KEY)
        return pk_fail(r, err, NL_ERR_FORMAT, it->offset, "a dict key at byte %lld is a %s (unhashable)",
                       (long long)it->offset, it->kind == PK_I_DICT ? "dict" : "list");
    if (r->depth >= r->depth_max)
        return pk_fail(r, err, NL_ERR_LIMIT, it->offset, "containers nested more than %u deep at byte %lld",
                       r->depth_max, (long long)it->offset);
    it->emitted = 1;
    if (p)
        p->nitems++;
    pk_open *o = &r->chain[r->depth++];
    o->item = c;
    o->nitems = 0;
    o->kind = it->kind;
    o->skip = p && p->skip;
    r->pending = r->n;
    if (o->skip)
        return 0;
    pickle_value v;
    memset(&v, 0, sizeof v);
    v.kind = it->kind == PK_I_DICT ? PICKLE_DICT : PICKLE_LIST;
    v.offset = it->offset;
    int rc = r->h.value(r->ctx, role, &v, err);
    if (rc < 0)
        return pk_handler_failed(r, err);
    o->skip = rc != PICKLE_VISIT;
    return 0;
}

/* ---- executing opcodes -------------------------------------------------------------------------------- */

static int pk_push_scalar(pickle_reader *r, pickle_kind k, int64_t i, nl_error *err)
{
    pk_item *it = pk_new(r, err);
    if (!it)
        return -1;
    *it = (pk_item){.kind = PK_I_SCALAR, .vkind = (uint8_t)k, .u.i = i, .offset = r->pos};
    return 0;
}

static int pk_exec_long(pickle_reader *r, const pk_op *op, nl_error *err)
{
    const uint8_t *b = op->data;
    size_t n = op->n;
    if (n == 0)
        return pk_push_scalar(r, PICKLE_INT, 0, err);
    size_t low = n < 8 ? n : 8;
    uint64_t v = pk_le(b, (unsigned)low);
    bool neg = b[n - 1] & 0x80;
    if (low < 8 && neg)
        v |= ~(uint64_t)0 << (8 * low);
    bool fits = true;
    if (n > 8) {
        uint8_t ext = neg ? 0xff : 0x00;
        for (size_t k = 8; k < n; k++)
            if (b[k] != ext)
                fits = false;
        if (((v >> 63) & 1) != (uint64_t)neg)
            fits = false;
    }
    return pk_push_scalar(r, fits ? PICKLE_INT : PICKLE_BIGINT, fits ? (int64_t)v : 0, err);
}

static int pk_exec_str(pickle_reader *r, const pk_op *op, bool text, nl_error *err)
{
    uint32_t id = 0;
    if (r->pass == 2) {
        if (text && !pk_utf8_ok(op->data, op->n))
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: the str is not valid UTF-8",
                           pk_opname(op->code), (long long)r->pos);
        nl_error e2;
        nl_error_clear(&e2);
        if (strtab_intern(r->strings, (const char *)op->data, op->n, &id, &e2) != 0)
            return pk_fail(r, err, e2.code, r->pos, "interning a string at byte %lld: %s", (long long)r->pos,
                           e2.message);
    }
    pk_item *it = pk_new(r, err);
    if (!it)
        return -1;
    *it = (pk_item){.kind = PK_I_SCALAR, .vkind = text ? PICKLE_STR : PICKLE_BYTES, .str = id, .offset = r->pos};
    return 0;
}

static int pk_exec_float(pickle_reader *r, const pk_op *op, nl_error *err)
{
    uint64_t bits = 0;
    for (int k = 0; k < 8; k++)
        bits = bits << 8 | op->arg[k]; /* big-endian */
    double f;
    memcpy(&f, &bits, sizeof f);
    pk_item *it = pk_new(r, err);
    if (!it)
        return -1;
    *it = (pk_item){.kind = PK_I_SCALAR, .vkind = PICKLE_FLOAT, .u.f = f, .offset = r->pos};
    return 0;
}

/* Items first..n-1 become one tuple; the stack is popped to `pop` (first, or the mark below it). */
static int pk_exec_tuple(pickle_reader *r, const pk_op *op, size_t first, size_t pop, nl_error *err)
{
    size_t count = r->n - first;
    if (count > PICKLE_TUPLE_MAX)
        return pk_fail(r, err, NL_ERR_LIMIT, r->pos, "opcode %s at byte %lld: a tuple of %zu items is over the "
                       "%u-item cap", pk_opname(op->code), (long long)r->pos, count, PICKLE_TUPLE_MAX);
    for (size_t k = first; k < r->n; k++) {
        const pk_item *it = &r->stk[k];
        if (it->kind == PK_I_MARK)
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: a MARK among the tuple's items",
                           pk_opname(op->code), (long long)r->pos);
        if (pk_is_container(it))
            return pk_fail(r, err, NL_ERR_UNSUPPORTED, r->pos, "opcode %s at byte %lld: a tuple holding a new dict or "
                           "list (made at byte %lld) is not supported", pk_opname(op->code), (long long)r->pos,
                           (long long)it->offset);
        if (it->kind == PK_I_TUPLE)
            return pk_fail(r, err, NL_ERR_UNSUPPORTED, r->pos, "opcode %s at byte %lld: a tuple inside a tuple is "
                           "not supported", pk_opname(op->code), (long long)r->pos);
        if (r->pass == 2 && it->emitted)
            return pk_changed(r, err, "a delivered item inside a tuple");
    }
    size_t start = 0;
    if (r->pass == 2) {
        if (r->tpool_n + count > PICKLE_STACK_MAX)
            return pk_fail(r, err, NL_ERR_LIMIT, r->pos, "more than %zu tuple items held at byte %lld",
                           (size_t)PICKLE_STACK_MAX, (long long)r->pos);
        if (pk_grow(r, (void **)&r->tpool, &r->tpool_cap, r->tpool_n + count, sizeof *r->tpool) != 0)
            return pk_nomem(r, err, r->pos, "tuple pool");
        start = r->tpool_n;
        if (count)
            memcpy(r->tpool + r->tpool_n, r->stk + first, count * sizeof *r->stk);
        r->tpool_n += count;
    }
    pk_pop_to(r, pop);
    pk_item *t = pk_new(r, err);
    if (!t)
        return -1;
    *t = (pk_item){.kind = PK_I_TUPLE, .count = (uint32_t)count, .u.start = start, .offset = r->pos};
    return 0;
}

static int pk_exec_container(pickle_reader *r, uint8_t kind, nl_error *err)
{
    uint64_t seq = r->counts[r->pass - 1].containers++;
    if (r->pass == 1 && pk_code_room(r, seq, err) != 0)
        return -1;
    if (r->pass == 2 && seq >= r->counts[0].containers)
        return pk_changed(r, err, "more containers than in the first pass");
    pk_item *it = pk_new(r, err);
    if (!it)
        return -1;
    *it = (pk_item){.kind = kind, .u.seq = seq, .offset = r->pos};
    return r->pass == 1 ? 0 : pk_begin(r, pk_code_get(r, seq), err);
}

static const char *pk_item_word(const pk_item *it)
{
    switch (it->kind) {
    case PK_I_MARK: return "MARK";
    case PK_I_DICT: return "new dict";
    case PK_I_LIST: return "new list";
    case PK_I_TUPLE: return "tuple";
    case PK_I_REF: return "dict or list read back from the memo";
    case PK_I_VAL: return "value read back from the memo";
    default: return "scalar";
    }
}

/* APPEND, APPENDS, SETITEM, SETITEMS: check the target and the items, record where containers went
 * (pass 1) or deliver (pass 2), pop. */
static int pk_exec_fill(pickle_reader *r, const pk_op *op, nl_error *err)
{
    bool dict = op->code == PK_SETITEM || op->code == PK_SETITEMS;
    bool batch = op->code == PK_APPENDS || op->code == PK_SETITEMS;
    size_t t, first;
    if (batch) {
        size_t mark = 0;
        if (pk_top_mark(r, op, &mark, err) != 0)
            return -1;
        if (mark == 0)
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: nothing below the MARK to fill",
                           pk_opname(op->code), (long long)r->pos);
        t = mark - 1;
        first = mark + 1;
        if (dict && ((r->n - first) & 1))
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode SETITEMS at byte %lld: an odd number of items "
                           "(%zu) above the MARK", (long long)r->pos, r->n - first);
    } else {
        size_t need = dict ? 3 : 2;
        if (r->n < need)
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld needs %zu values on the stack",
                           pk_opname(op->code), (long long)r->pos, need);
        t = r->n - need;
        first = t + 1;
        for (size_t k = first; k < r->n; k++)
            if (r->stk[k].kind == PK_I_MARK)
                return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: a MARK where a value "
                               "belongs", pk_opname(op->code), (long long)r->pos);
    }
    uint8_t want = dict ? PK_I_DICT : PK_I_LIST;
    if (r->stk[t].kind != want)
        return pk_fail(r, err, r->stk[t].kind == PK_I_REF || r->stk[t].kind == PK_I_VAL ? NL_ERR_UNSUPPORTED
                       : NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld needs a %s built on the stack below its "
                       "items, found a %s", pk_opname(op->code), (long long)r->pos, dict ? "dict" : "list",
                       pk_item_word(&r->stk[t]));
    for (size_t k = first; k < r->n; k++) {
        pk_item *it = &r->stk[k];
        bool key = dict && ((k - first) & 1) == 0;
        if (!pk_is_container(it))
            continue;
        if (key)
            return pk_fail(r, err, NL_ERR_FORMAT, it->offset, "a dict key at byte %lld is a %s (unhashable)",
                           (long long)it->offset, it->kind == PK_I_DICT ? "dict" : "list");
        if (r->pass == 1)
            pk_code_set(r, it->u.seq, batch ? PK_TO_MARK : dict ? PK_TO_KEY : PK_TO_BELOW);
    }
    if (r->pass == 2 && pk_settle(r, t, first, err) != 0)
        return -1;
    pk_pop_to(r, batch ? first - 1 : first);
    return 0;
}

static int pk_set_getbit(pickle_reader *r, uint64_t idx, nl_error *err)
{
    size_t w = (size_t)(idx >> 6);
    if (w >= r->getbits_words) {
        size_t old = r->getbits_words;
        if (pk_grow(r, (void **)&r->getbits, &r->getbits_words, w + 1, sizeof *r->getbits) != 0)
            return pk_nomem(r, err, r->pos, "memo index");
        memset(r->getbits + old, 0, (r->getbits_words - old) * sizeof *r->getbits);
    }
    r->getbits[w] |= (uint64_t)1 << (idx & 63);
    return 0;
}

/* Pass 2: keep the top item as memo value `slot`. */
static int pk_memo_store(pickle_reader *r, size_t slot, nl_error *err)
{
    pk_item *top = &r->stk[r->n - 1];
    pk_item m = *top;
    m.emitted = 0;
    if (top->kind == PK_I_TUPLE && !top->persistent) {
        if (r->tstore_n + top->count > PICKLE_STACK_MAX)
            return pk_fail(r, err, NL_ERR_LIMIT, r->pos, "more than %zu items of memoized tuples at byte %lld",
                           (size_t)PICKLE_STACK_MAX, (long long)r->pos);
        if (pk_grow(r, (void **)&r->tstore, &r->tstore_cap, r->tstore_n + top->count, sizeof *r->tstore) != 0)
            return pk_nomem(r, err, r->pos, "memo");
        if (top->count)
            memcpy(r->tstore + r->tstore_n, r->tpool + top->u.start, top->count * sizeof *r->tpool);
        m.u.start = r->tstore_n;
        m.persistent = 1;
        r->tstore_n += top->count;
    } else if (pk_is_container(top)) {
        if (!top->rec) {
            if (r->nrecs >= UINT32_MAX - 1 ||
                pk_grow(r, (void **)&r->recs, &r->recs_cap, r->nrecs + 1, sizeof *r->recs) != 0)
                return pk_nomem(r, err, r->pos, "memo");
            r->recs[r->nrecs] = (pk_rec){.state = PK_REC_OPEN, .kind = top->kind};
            top->rec = (uint32_t)++r->nrecs;
        }
        memset(&m, 0, sizeof m);
        m.kind = PK_I_REF;
        m.rec = top->rec - 1;
    }
    r->memo[slot] = m;
    r->memo_set[slot] = 1;
    return 0;
}

static int pk_exec_put(pickle_reader *r, const pk_op *op, nl_error *err)
{
    uint64_t idx = op->code == PK_MEMOIZE ? r->memo_len : op->u;
    if (r->n == 0 || r->stk[r->n - 1].kind == PK_I_MARK)
        return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: no value on the stack to memoize",
                       pk_opname(op->code), (long long)r->pos);
    if (idx > r->memo_len)
        return pk_fail(r, err, NL_ERR_UNSUPPORTED, r->pos, "opcode %s at byte %lld: memo index %llu is out of "
                       "sequence (the next free one is %llu)", pk_opname(op->code), (long long)r->pos,
                       (unsigned long long)idx, (unsigned long long)r->memo_len);
    if (idx == r->memo_len) {
        if (r->memo_len >= PICKLE_MEMO_MAX)
            return pk_fail(r, err, NL_ERR_LIMIT, r->pos, "more than %llu memo entries at byte %lld",
                           (unsigned long long)PICKLE_MEMO_MAX, (long long)r->pos);
        r->memo_len++;
    }
    r->counts[r->pass - 1].memo++;
    if (r->pass == 2 && pk_getbit(r, idx))
        return pk_memo_store(r, pk_getrank(r, idx), err);
    return 0;
}

static int pk_exec_get(pickle_reader *r, const pk_op *op, nl_error *err)
{
    uint64_t idx = op->u;
    if (idx >= r->memo_len)
        return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld: memo index %llu was never set "
                       "(%llu entries so far)", pk_opname(op->code), (long long)r->pos, (unsigned long long)idx,
                       (unsigned long long)r->memo_len);
    r->counts[r->pass - 1].gets++;
    if (r->pass == 1) {
        if (pk_set_getbit(r, idx, err) != 0)
            return -1;
        pk_item *it = pk_new(r, err);
        if (!it)
            return -1;
        *it = (pk_item){.kind = PK_I_VAL, .offset = r->pos};
        return 0;
    }
    if (!pk_getbit(r, idx))
        return pk_changed(r, err, "a memo read the first pass did not see");
    size_t slot = pk_getrank(r, idx);
    if (!r->memo_set[slot])
        return pk_changed(r, err, "a memo read before its write");
    pk_item *it = pk_new(r, err);
    if (!it)
        return -1;
    *it = r->memo[slot];
    it->offset = r->pos;
    it->emitted = 0;
    return 0;
}

static int pk_exec_stop(pickle_reader *r, nl_error *err)
{
    if (r->n != 1 || r->stk[0].kind == PK_I_MARK)
        return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "STOP at byte %lld with %zu values on the stack (expected "
                       "exactly one)", (long long)r->pos, r->nmarks ? r->n - r->nmarks : r->n);
    pk_item *it = &r->stk[0];
    if (r->pass == 1) {
        if (pk_is_container(it))
            pk_code_set(r, it->u.seq, PK_TO_ROOT);
    } else if (pk_is_container(it)) {
        if (pk_close_from(r, 0, err) != 0)
            return -1;
    } else if (pk_deliver(r, NULL, it, err) != 0) {
        return -1;
    }
    r->done = true;
    return 0;
}

/* Count one opcode and poll the cancel flag now and then. */
static inline int pk_tick(pickle_reader *r, nl_error *err)
{
    r->counts[r->pass - 1].ops++;
    if (r->cancel && ++r->poll >= PICKLE_POLL_OPS) {
        r->poll = 0;
        if (atomic_load(r->cancel))
            return pk_fail(r, err, NL_ERR_CANCELLED, r->pos, "cancelled");
    }
    return 0;
}

static int pk_exec(pickle_reader *r, const pk_op *op, nl_error *err)
{
    if (pk_tick(r, err) != 0)
        return -1;
    switch (op->code) {
    case PK_PROTO:
        if (op->i > 5)
            return pk_fail(r, err, NL_ERR_UNSUPPORTED, r->pos, "pickle protocol %d at byte %lld is newer than 5",
                           (int)op->i, (long long)r->pos);
        r->protocol = (int)op->i;
        return 0;
    case PK_FRAME: return 0;
    case PK_STOP: return pk_exec_stop(r, err);
    case PK_MARK_OP: return pk_push_mark(r, err);
    case PK_EMPTY_DICT: return pk_exec_container(r, PK_I_DICT, err);
    case PK_EMPTY_LIST: return pk_exec_container(r, PK_I_LIST, err);
    case PK_EMPTY_TUPLE: return pk_exec_tuple(r, op, r->n, r->n, err);
    case PK_TUPLE: {
        size_t mark = 0;
        if (pk_top_mark(r, op, &mark, err) != 0)
            return -1;
        return pk_exec_tuple(r, op, mark + 1, mark, err);
    }
    case PK_TUPLE1: case PK_TUPLE2: case PK_TUPLE3: {
        size_t k = (size_t)(op->code - PK_TUPLE1 + 1);
        if (r->n < k)
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode %s at byte %lld needs %zu values on the stack",
                           pk_opname(op->code), (long long)r->pos, k);
        return pk_exec_tuple(r, op, r->n - k, r->n - k, err);
    }
    case PK_APPEND: case PK_APPENDS: case PK_SETITEM: case PK_SETITEMS: return pk_exec_fill(r, op, err);
    case PK_NONE: return pk_push_scalar(r, PICKLE_NONE, 0, err);
    case PK_NEWTRUE: return pk_push_scalar(r, PICKLE_BOOL, 1, err);
    case PK_NEWFALSE: return pk_push_scalar(r, PICKLE_BOOL, 0, err);
    case PK_BININT: case PK_BININT1: case PK_BININT2: return pk_push_scalar(r, PICKLE_INT, op->i, err);
    case PK_LONG1: case PK_LONG4: return pk_exec_long(r, op, err);
    case PK_BINFLOAT: return pk_exec_float(r, op, err);
    case PK_SHORT_BINUNICODE: case PK_BINUNICODE: case PK_BINUNICODE8: return pk_exec_str(r, op, true, err);
    case PK_SHORT_BINBYTES: case PK_BINBYTES: case PK_BINBYTES8: case PK_BYTEARRAY8:
        return pk_exec_str(r, op, false, err);
    case PK_MEMOIZE: case PK_BINPUT: case PK_LONG_BINPUT: case PK_PUT: return pk_exec_put(r, op, err);
    case PK_BINGET: case PK_LONG_BINGET: case PK_GET: return pk_exec_get(r, op, err);
    default: break;
    }
    return pk_fail(r, err, NL_ERR_INTERNAL, r->pos, "opcode 0x%02x at byte %lld has no handler", op->code,
                   (long long)r->pos);
}

/* ---- the fast path ------------------------------------------------------------------------------------ */

/* Bytes that must be available for pk_fast (the longest opcode it takes whole: LONG1 of 8 bytes). */
#define PK_FAST_MIN 16u

/* The opcodes that make up nearly all of a snapshot (memo reads, small ints, marks, empty containers,
 * batches), decoded and executed in one switch: through pk_decode + pk_exec each opcode took two indirect
 * jumps that the branch predictor misses on this mix. p[0..avail), avail >= PK_FAST_MIN. 1 with *used set,
 * 0 for any other opcode (the general path decides), -1 error. */
static int pk_fast(pickle_reader *r, const uint8_t *p, size_t avail, size_t *used, nl_error *err)
{
    pk_op op = {.code = p[0]};
    switch (p[0]) {
    case PK_BINGET: op.u = p[1], *used = 2; break;
    case PK_LONG_BINGET: op.u = pk_le(p + 1, 4), *used = 5; break;
    case PK_BINPUT: op.u = p[1], *used = 2; break;
    case PK_BININT1: op.i = p[1], *used = 2; break;
    case PK_BININT2: op.i = (int64_t)pk_le(p + 1, 2), *used = 3; break;
    case PK_BININT: op.i = (int32_t)(uint32_t)pk_le(p + 1, 4), *used = 5; break;
    case PK_LONG1:
        if (p[1] > 8)
            return 0;
        op.data = p + 2, op.n = p[1], *used = 2 + (size_t)p[1];
        break;
    case PK_SHORT_BINUNICODE:
        if ((size_t)p[1] + 2 > avail)
            return 0;
        op.data = p + 2, op.n = p[1], *used = 2 + (size_t)p[1];
        break;
    case PK_MEMOIZE: case PK_MARK_OP: case PK_EMPTY_DICT: case PK_EMPTY_LIST: case PK_SETITEMS: case PK_APPENDS:
    case PK_SETITEM: case PK_APPEND: case PK_NONE: case PK_NEWTRUE: case PK_NEWFALSE: case PK_TUPLE2:
        *used = 1;
        break;
    default:
        return 0;
    }
    if (pk_tick(r, err) != 0)
        return -1;
    int rc;
    switch (p[0]) {
    case PK_BINGET: case PK_LONG_BINGET: rc = pk_exec_get(r, &op, err); break;
    case PK_BINPUT: case PK_MEMOIZE: rc = pk_exec_put(r, &op, err); break;
    case PK_BININT1: case PK_BININT2: case PK_BININT: rc = pk_push_scalar(r, PICKLE_INT, op.i, err); break;
    case PK_LONG1: rc = pk_exec_long(r, &op, err); break;
    case PK_SHORT_BINUNICODE: rc = pk_exec_str(r, &op, true, err); break;
    case PK_MARK_OP: rc = pk_push_mark(r, err); break;
    case PK_EMPTY_DICT: rc = pk_exec_container(r, PK_I_DICT, err); break;
    case PK_EMPTY_LIST: rc = pk_exec_container(r, PK_I_LIST, err); break;
    case PK_NONE: rc = pk_push_scalar(r, PICKLE_NONE, 0, err); break;
    case PK_NEWTRUE: case PK_NEWFALSE: rc = pk_push_scalar(r, PICKLE_BOOL, p[0] == PK_NEWTRUE, err); break;
    case PK_TUPLE2:
        if (r->n < 2)
            return pk_fail(r, err, NL_ERR_FORMAT, r->pos, "opcode TUPLE2 at byte %lld needs 2 values on the stack",
                           (long long)r->pos);
        rc = pk_exec_tuple(r, &op, r->n - 2, r->n - 2, err);
        break;
    default: rc = pk_exec_fill(r, &op, err); break;
    }
    return rc ? -1 : 1;
}

/* ---- feeding ------------------------------------------------------------------------------------------ */

static int pk_dead(const pickle_reader *r, nl_error *err)
{
    return nl_error_set(err, NL_ERR_INTERNAL, r->source[0] ? r->source : NULL, r->pos,
                        "the pickle reader already failed");
}

static int pk_carry_add(pickle_reader *r, const uint8_t *p, size_t n, nl_error *err)
{
    if (pk_grow(r, (void **)&r->carry, &r->carry_cap, r->carry_len + n, 1) != 0)
        return pk_nomem(r, err, r->pos, "input carry");
    memcpy(r->carry + r->carry_len, p, n);
    r->carry_len += n;
    return 0;
}

int pickle_reader_feed(pickle_reader *r, const void *data, size_t len, nl_error *err)
{
    if (r->dead)
        return pk_dead(r, err);
    const uint8_t *p = data;
    pk_op op;
    size_t need = 0;
    while (r->carry_len > 0 && !r->done) {
        int rc = pk_decode(r, r->carry, r->carry_len, &op, &need, err);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            if (pk_exec(r, &op, err) != 0)
                return -1;
            r->pos += (int64_t)op.len;
            r->carry_len = 0;
            break;
        }
        if (len == 0)
            return 0;
        size_t take = need - r->carry_len;
        if (take > len)
            take = len;
        if (pk_carry_add(r, p, take, err) != 0)
            return -1;
        p += take;
        len -= take;
    }
    while (len > 0 && !r->done) {
        if (len >= PK_FAST_MIN) {
            size_t used;
            int fr = pk_fast(r, p, len, &used, err);
            if (fr < 0)
                return -1;
            if (fr > 0) {
                r->pos += (int64_t)used;
                p += used;
                len -= used;
                continue;
            }
        }
        int rc = pk_decode(r, p, len, &op, &need, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return pk_carry_add(r, p, len, err);
        if (pk_exec(r, &op, err) != 0)
            return -1;
        r->pos += (int64_t)op.len;
        p += op.len;
        len -= op.len;
    }
    return 0;
}

/* Reset the machine for pass 2 and size the memo for the entries pass 1 saw read back. */
static int pk_start_pass2(pickle_reader *r, nl_error *err)
{
    size_t words = r->getbits_words;
    size_t kept = 0;
    if (words) {
        r->getrank = malloc(words * sizeof *r->getrank);
        if (!r->getrank)
            return pk_nomem(r, err, r->pos, "memo index");
        for (size_t w = 0; w < words; w++) {
            r->getrank[w] = (uint32_t)kept;
            kept += pk_popcount(r->getbits[w]);
        }
        r->state_bytes += words * sizeof *r->getrank;
    }
    if (kept) {
        r->memo = calloc(kept, sizeof *r->memo);
        r->memo_set = calloc(kept, 1);
        if (!r->memo || !r->memo_set)
            return pk_nomem(r, err, r->pos, "memo");
        r->state_bytes += kept * (sizeof *r->memo + 1);
    }
    r->memo_slots = kept;
    r->pass = 2;
    r->done = false;
    r->pos = 0;
    r->carry_len = 0;
    r->n = r->nmarks = r->pending = 0;
    r->depth = 0;
    r->memo_len = 0;
    r->poll = 0;
    return 0;
}

int pickle_reader_end(pickle_reader *r, nl_error *err)
{
    if (r->dead)
        return pk_dead(r, err);
    if (!r->done) {
        if (r->carry_len > 0)
            return pk_fail(r, err, NL_ERR_TRUNCATED, r->pos, "the input ended inside opcode %s at byte %lld (%zu of "
                           "its bytes present)", pk_opname(r->carry[0]), (long long)r->pos, r->carry_len);
        return pk_fail(r, err, NL_ERR_TRUNCATED, r->pos, "the input ended at byte %lld before the STOP opcode",
                       (long long)r->pos);
    }
    r->counts[r->pass - 1].bytes = (uint64_t)r->pos;
    if (r->pass == 1)
        return pk_start_pass2(r, err) == 0 ? 1 : -1;
    if (memcmp(&r->counts[0], &r->counts[1], sizeof r->counts[0]) != 0)
        return pk_changed(r, err, "different opcode counts");
    r->dead = true; /* a finished reader takes no more input */
    return 0;
}

void pickle_reader_stats(const pickle_reader *r, pickle_stats *out)
{
    memset(out, 0, sizeof *out);
    const pk_counts *c = &r->counts[r->pass == 2 ? 1 : 0];
    out->protocol = r->protocol;
    out->bytes = c->bytes;
    out->ops = c->ops;
    out->containers = c->containers;
    out->memo_entries = c->memo;
    out->memo_kept = r->memo_slots;
    out->gets = c->gets;
    out->stack_peak = r->stack_peak > r->n ? r->stack_peak : r->n;
    out->state_bytes = r->state_bytes;
}

/* ---- lifecycle and whole reads ------------------------------------------------------------------------ */

pickle_reader *pickle_reader_new(strtab *strings, const pickle_handler *h, void *ctx, const pickle_options *opt,
                                 nl_error *err)
{
    const char *src = opt && opt->source ? opt->source : NULL;
    if (!strings || !h || !h->value || !h->end) {
        nl_error_set(err, NL_ERR_ARGUMENT, src, -1, "pickle_reader_new needs a string table and both handlers");
        return NULL;
    }
    pickle_reader *r = calloc(1, sizeof *r);
    if (!r) {
        nl_error_set(err, NL_ERR_NOMEM, src, -1, "out of memory for a pickle reader");
        return NULL;
    }
    r->strings = strings;
    r->h = *h;
    r->ctx = ctx;
    r->pass = 1;
    r->state_bytes = sizeof *r;
    if (src)
        snprintf(r->source, sizeof r->source, "%s", src);
    r->cancel = opt ? opt->cancel : NULL;
    r->depth_max = opt && opt->depth_max && opt->depth_max < PICKLE_DEPTH_MAX ? opt->depth_max : PICKLE_DEPTH_MAX;
    r->string_max = opt && opt->string_max && opt->string_max < PICKLE_STRING_MAX ? opt->string_max
                                                                                  : PICKLE_STRING_MAX;
    return r;
}

void pickle_reader_free(pickle_reader *r)
{
    if (!r)
        return;
    free(r->carry);
    free(r->stk);
    free(r->marks);
    free(r->codes);
    free(r->getbits);
    free(r->getrank);
    free(r->memo);
    free(r->memo_set);
    free(r->recs);
    free(r->tpool);
    free(r->tstore);
    free(r);
}

/* Run both passes, each reading through `next` (0 with *len = 0 at the end, -1 with err). */
typedef int (*pk_source_fn)(void *src, int pass, const uint8_t **data, size_t *len, nl_error *err);

static int pk_run(pk_source_fn next, void *src, strtab *strings, const pickle_handler *h, void *ctx,
                  const pickle_options *opt, pickle_stats *stats, nl_error *err)
{
    pickle_reader *r = pickle_reader_new(strings, h, ctx, opt, err);
    if (!r)
        return -1;
    int rc = -1;
    for (int pass = 1; pass <= 2; pass++) {
        for (;;) {
            const uint8_t *data;
            size_t len;
            if (next(src, pass, &data, &len, err) != 0)
                goto out;
            if (len == 0)
                break;
            if (pickle_reader_feed(r, data, len, err) != 0)
                goto out;
            if (r->done)
                break; /* bytes after STOP are not read */
        }
        int e = pickle_reader_end(r, err);
        if (e < 0 || (e == 0) != (pass == 2))
            goto out;
    }
    rc = 0;
out:
    if (stats)
        pickle_reader_stats(r, stats);
    pickle_reader_free(r);
    return rc;
}

typedef struct pk_mem_src {
    const uint8_t *data;
    size_t len;
    int pass;
} pk_mem_src;

static int pk_mem_next(void *src, int pass, const uint8_t **data, size_t *len, nl_error *err)
{
    (void)err;
    pk_mem_src *m = src;
    *data = m->data;
    *len = m->pass == pass ? 0 : m->len;
    m->pass = pass;
    return 0;
}

int pickle_read_mem(const void *data, size_t len, strtab *strings, const pickle_handler *h, void *ctx,
                    const pickle_options *opt, pickle_stats *stats, nl_error *err)
{
    pk_mem_src m = {.data = data, .len = len, .pass = 0};
    return pk_run(pk_mem_next, &m, strings, h, ctx, opt, stats, err);
}

typedef struct pk_fd_src {
    int fd;
    const char *name;
    uint8_t *buf;
    size_t size;
    uint64_t off;
    int pass;
} pk_fd_src;

static int pk_fd_next(void *src, int pass, const uint8_t **data, size_t *len, nl_error *err)
{
    pk_fd_src *f = src;
    if (f->pass != pass) {
        f->pass = pass;
        f->off = 0;
    }
    size_t got = 0;
    if (rdfile_pread(f->fd, f->buf, f->size, f->off, &got, f->name, err) != 0)
        return -1;
    f->off += got;
    *data = f->buf;
    *len = got;
    return 0;
}

int pickle_read_fd(int fd, strtab *strings, const pickle_handler *h, void *ctx, const pickle_options *opt,
                   pickle_stats *stats, nl_error *err)
{
    size_t size = opt && opt->read_size ? opt->read_size : PICKLE_READ_SIZE;
    pk_fd_src f = {.fd = fd, .name = opt ? opt->source : NULL, .size = size};
    f.buf = malloc(size);
    if (!f.buf)
        return nl_error_set(err, NL_ERR_NOMEM, f.name, -1, "out of memory for a %zu-byte read buffer", size);
    int rc = pk_run(pk_fd_next, &f, strings, h, ctx, opt, stats, err);
    free(f.buf);
    return rc;
}

int pickle_read_file(const char *path, strtab *strings, const pickle_handler *h, void *ctx,
                     const pickle_options *opt, pickle_stats *stats, nl_error *err)
{
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err) != 0)
        return -1;
    pickle_options o = opt ? *opt : (pickle_options){0};
    if (!o.source)
        o.source = path;
    int rc = pickle_read_fd(fd, strings, h, ctx, &o, stats, err);
    close(fd);
    return rc;
}

/* neuron_json_split_check — test driver: read one export sequentially (threads = 1) and split (threads = N,
 * every input size split), and compare the two models exhaustively (tests/unit/model_compare.c).
 *
 * Usage: neuron_json_split_check [--threads N] [--records R] [--mem] EXPORT.json
 *   --records R  elements per piece (default 0 = TABLE_SEG_ROWS); --mem reads through neuron_json_read_mem.
 * Prints "same: ..." and exits 0 when equal and the input was really split; prints the first difference and
 * exits 1; 2 on usage errors. A read that fails one way must fail the same way the other (same code,
 * offset, record, field and message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_compare.h"
#include "neuron_json.h"

static char *check_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int check_read(const char *path, int mem, const neuron_json_options *opt, device_model **m, nl_error *err)
{
    if (!mem)
        return neuron_json_read(path, opt, m, err);
    size_t len;
    char *buf = check_slurp(path, &len);
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    int rc = neuron_json_read_mem(buf, len, path, opt, m, err);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    size_t pieces = 0;
    neuron_json_options split = {.threads = 2, .split_min = 1, .split_pieces = &pieces};
    neuron_json_options seq = {.threads = 1};
    int mem = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            split.threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--records") == 0 && i + 1 < argc)
            split.split_records = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mem") == 0)
            mem = 1;
        else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: neuron_json_split_check [--threads N] [--records R] [--mem] EXPORT.json\n");
        return 2;
    }
    device_model *a = NULL, *b = NULL;
    nl_error ea, eb;
    int ra = check_read(path, mem, &seq, &a, &ea);
    int rb = check_read(path, mem, &split, &b, &eb);
    if (ra || rb) {
        int same = ra && rb && ea.code == eb.code && ea.offset == eb.offset && ea.record == eb.record &&
                   strcmp(ea.message, eb.message) == 0 && strcmp(ea.field, eb.field) == 0;
        fprintf(stderr, "sequential: %s\nsplit:      %s\n", ra ? ea.message : "ok", rb ? eb.message : "ok");
        device_model_free(a);
        device_model_free(b);
        printf("%s: both reads %s\n", same ? "same" : "DIFFERENT", same ? "failed the same way" : "disagree");
        return same ? 0 : 1;
    }
    char why[256] = "the input was not split";
    int diff = pieces == 0 || model_compare(a, b, why, sizeof why);
    printf("%s: %zu pieces; %zu instructions, %zu dma, %u strings, %zu notes%s%s\n", diff ? "DIFFERENT" : "same",
           pieces, device_model_rows(a, DEVICE_MODEL_INSTRUCTIONS), device_model_rows(a, DEVICE_MODEL_DMA),
           strtab_count(device_model_strings(a)), device_model_note_count(a), diff ? ": " : "", diff ? why : "");
    device_model_free(a);
    device_model_free(b);
    return diff;
}

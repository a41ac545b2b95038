/* model_compare — test helper: are two device models the same model, value for value and id for id?
 *
 * Compares everything a reader of the model can observe: the string table (every id's bytes), every table
 * (rows, every cell, every string column's dictionary codes and code → id order, TABLE_INT ranges), the
 * singleton records (every entry), the notes (in order) and the time origin. Not compared: memory sizes
 * (device_model_bytes), which depend on how the rows were appended. Used to prove that the split read
 * (neuron_json_par.c) builds exactly the sequential read's model. */
#ifndef NL_TEST_MODEL_COMPARE_H
#define NL_TEST_MODEL_COMPARE_H

#include <stddef.h>

#include "device_model.h"

/* 0 when equal; else 1 and the first difference described in why[0, cap). */
int model_compare(const device_model *a, const device_model *b, char *why, size_t cap);

#endif

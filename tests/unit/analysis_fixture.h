/* analysis_fixture — a small handcrafted full JSON export shared by test_attribution, test_extract and
 * test_page. Times are raw device ns; first_hw_timestamp = 1000, so row times below are relative.
 *
 *  row  t     dur  wait engine  opcode (compiler)            source   layer  bytes
 *   0   0     10   0    Tensor  MATMUL                       a.py:1   L1     hbm_read 100
 *   1   5     10   20   Vector  ACTIVATE                     a.py:2   L1     sbuf_write 64
 *   2   20    10   0    Tensor  MATMUL                       a.py:1   L2     hbm_read 100
 *   3   30    100  0    Vector  EVENT_SEMAPHORE              -        -
 *   4   40    0    0    Tensor  NOP                          -        -
 *   5   2030  10   3    Tensor  MATMUL (label TensorMatrix)  a.py:3   L2
 *   6   2040  5    7    Scalar  DMA_DIRECT2D (PSEUDO_DMA_DIRECT2D)  b.py:9  L2  hbm_read 200, sbuf_write 200
 *   7   2045  5    0    Scalar  WRITE (PSEUDO_DMA_TRIGGER)   b.py:9   L2     hbm_write 5000
 *
 * Tensor busy: [0,10) [20,30) [2030,2040) = 30 ns in 3 intervals (NOP is zero-length), gaps 10 and 2000.
 * dma: packets 100 B (qA), 600 B (qA), 5000 B (qB), an aggregated 5700 B record, a duplicate 50 B packet;
 * timestamps deliberately out of order. */
#ifndef NL_TEST_ANALYSIS_FIXTURE_H
#define NL_TEST_ANALYSIS_FIXTURE_H

#define FIXTURE_I(t, d, w, eng, lab, op, extra) \
    "{\"timestamp\":" #t ",\"duration\":" #d ",\"evt_wait_time\":" #w ",\"subgroup\":\"" eng "\",\"label\":\"" lab \
    "\",\"opcode\":\"" op "\",\"id\":" #t extra "}"

static const char fixture_export[] =
    "{\"metadata\":[{\"first_hw_timestamp\":1000,\"last_hw_timestamp\":4000}],"
    "\"warnings\":[{\"message\":\"Missing additional dynamic DMA metadata (dge)\",\"category\":\"Missing Data\"}],"
    "\"instruction\":["
    FIXTURE_I(1000, 10, 0, "Tensor", "Tensor", "MATMUL", ",\"nki_source_location\":\"a.py:1\",\"layer\":\"L1\",\"hlo_name\":\"H1\",\"hbm_read_bytes\":100") ","
    FIXTURE_I(1005, 10, 20, "Vector", "Vector", "ACTIVATE", ",\"nki_source_location\":\"a.py:2\",\"layer\":\"L1\",\"sbuf_write_bytes\":64") ","
    FIXTURE_I(1020, 10, 0, "Tensor", "Tensor", "MATMUL", ",\"nki_source_location\":\"a.py:1\",\"layer\":\"L2\",\"hbm_read_bytes\":100") ","
    FIXTURE_I(1030, 100, 0, "Vector", "Vector", "EVENT_SEMAPHORE", "") ","
    FIXTURE_I(1040, 0, 0, "Tensor", "Tensor", "NOP", "") ","
    FIXTURE_I(3030, 10, 3, "Tensor", "TensorMatrix", "MATMUL", ",\"nki_source_location\":\"a.py:3\",\"layer\":\"L2\"") ","
    FIXTURE_I(3040, 5, 7, "Scalar", "Scalar", "DMA_DIRECT2D", ",\"compiler_opcode\":\"PSEUDO_DMA_DIRECT2D\",\"nki_source_location\":\"b.py:9\",\"layer\":\"L2\",\"hbm_read_bytes\":200,\"sbuf_write_bytes\":200") ","
    FIXTURE_I(3045, 5, 0, "Scalar", "Scalar", "WRITE", ",\"compiler_opcode\":\"PSEUDO_DMA_TRIGGER\",\"nki_source_location\":\"b.py:9\",\"layer\":\"L2\",\"hbm_write_bytes\":5000")
    "],"
    "\"dma\":["
    "{\"timestamp\":1500,\"duration\":20,\"transfer_size\":600,\"subgroup\":\"qA-Q1-E0\",\"queue_type\":\"data\",\"variable\":\"unknown\",\"aggregated\":\"no\",\"id\":11},"
    "{\"timestamp\":1100,\"duration\":20,\"transfer_size\":100,\"subgroup\":\"qA-Q1-E1\",\"queue_type\":\"data\",\"variable\":\"unknown\",\"aggregated\":\"no\",\"id\":12},"
    "{\"timestamp\":1300,\"duration\":50,\"transfer_size\":5000,\"subgroup\":\"qB-Q2-E0\",\"queue_type\":\"software_dynamic\",\"variable\":\"w\",\"aggregated\":\"no\",\"id\":13},"
    "{\"timestamp\":1100,\"duration\":450,\"transfer_size\":5700,\"subgroup\":\"qA\",\"queue_type\":\"data\",\"aggregated\":\"yes\",\"id\":14},"
    "{\"timestamp\":1200,\"duration\":5,\"transfer_size\":50,\"subgroup\":\"qA-Q1-E0\",\"queue_type\":\"data\",\"aggregated\":\"no\",\"duplicate\":\"yes\",\"id\":15}"
    "],"
    "\"active_time\":["
    "{\"engine\":\"tensor\",\"start_ts\":1000,\"end_ts\":1010,\"duration_ns\":10,\"pcore_idx\":0},"
    "{\"engine\":\"tensor\",\"start_ts\":1020,\"end_ts\":1030,\"duration_ns\":10,\"pcore_idx\":0},"
    "{\"engine\":\"tensor\",\"start_ts\":3030,\"end_ts\":3040,\"duration_ns\":10,\"pcore_idx\":0},"
    "{\"engine\":\"vector\",\"start_ts\":1005,\"end_ts\":1015,\"duration_ns\":10,\"pcore_idx\":0}"
    "],"
    "\"semaphore_update\":["
    "{\"id\":\"2\",\"value\":1,\"timestamp\":1010},{\"id\":\"2\",\"value\":2,\"timestamp\":1030},"
    "{\"id\":\"5\",\"value\":1,\"timestamp\":1030}"
    "]}";

/* The same instructions without any source location. */
static const char fixture_no_source[] =
    "{\"instruction\":["
    FIXTURE_I(0, 10, 0, "Tensor", "Tensor", "MATMUL", ",\"layer\":\"L1\"") ","
    FIXTURE_I(5, 10, 20, "Vector", "Vector", "ACTIVATE", "")
    "]}";

#endif

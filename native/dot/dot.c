/*
 * The dot products of a query with a run of vectors (dots8: of their int8 codes, for the
 * first pass of a scan), for the vector leg's scans (IVF lists
 * and centroids), which are most of a hybrid search at a million sections; and the weighted sum of word
 * vectors the default embedder pools a text into (weightedRows). The arithmetic is exactly the
 * JavaScript fallbacks': each product in double precision, summed in order, one sum per vector, no fused
 * multiply-add (-ffp-contract=off), so both give the same scores to the last bit and the same answers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <node_api.h>

static int typed(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *length) {
  bool is;
  napi_typedarray_type type;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return 0;
  if (napi_get_typedarray_info(env, v, &type, length, data, NULL, NULL) != napi_ok) return 0;
  return type == want;
}

/* dots(q: Float64Array, data: Float32Array, dims: number, rows: number, out: Float64Array): out[j] = q . data[j * dims ..] */
static napi_value dots(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  const double *q;
  const float *data;
  double *out;
  size_t ql, dl, ol;
  int32_t dims, rows;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5
      || !typed(env, argv[0], napi_float64_array, (void **)&q, &ql)
      || !typed(env, argv[1], napi_float32_array, (void **)&data, &dl)
      || napi_get_value_int32(env, argv[2], &dims) != napi_ok || napi_get_value_int32(env, argv[3], &rows) != napi_ok
      || !typed(env, argv[4], napi_float64_array, (void **)&out, &ol)
      || dims <= 0 || rows < 0 || ql < (size_t)dims || ol < (size_t)rows || dl / (size_t)dims < (size_t)rows) {
    napi_throw_type_error(env, NULL, "dots(q: Float64Array, data: Float32Array, dims, rows, out: Float64Array): data must hold rows x dims, q dims, out rows");
    return NULL;
  }
  int32_t j = 0;
  /* Four vectors per pass: each query component is loaded once for four independent sums (eight were
     slower here: more streams of memory at once). */
  for (; j + 4 <= rows; j += 4) {
    const float *r0 = data + (size_t)j * dims, *r1 = r0 + dims, *r2 = r1 + dims, *r3 = r2 + dims;
    double d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (int32_t i = 0; i < dims; i++) {
      const double x = q[i];
      d0 += (double)r0[i] * x;
      d1 += (double)r1[i] * x;
      d2 += (double)r2[i] * x;
      d3 += (double)r3[i] * x;
    }
    out[j] = d0;
    out[j + 1] = d1;
    out[j + 2] = d2;
    out[j + 3] = d3;
  }
  for (; j < rows; j++) {
    const float *r = data + (size_t)j * dims;
    double d = 0;
    for (int32_t i = 0; i < dims; i++) d += (double)r[i] * q[i];
    out[j] = d;
  }
  return NULL;
}

/* One row's int8 dot product. Integer sums are exact in any order, so the compiler may vectorise freely;
   target_clones builds an AVX2 version beside the baseline one and picks at load time. */
__attribute__((target_clones("avx2", "default")))
static void dots8_rows(const int8_t *q, const int8_t *data, int32_t dims, int32_t rows, int32_t *out) {
  for (int32_t j = 0; j < rows; j++) {
    const int8_t *r = data + (size_t)j * dims;
    int32_t d = 0;
    for (int32_t i = 0; i < dims; i++) d += (int32_t)r[i] * (int32_t)q[i];
    out[j] = d;
  }
}

/* dots8(q: Int8Array, data: Int8Array, dims, rows, out: Int32Array): out[j] = q . data[j * dims ..], in integers */
static napi_value dots8(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  const int8_t *q, *data;
  int32_t *out;
  size_t ql, dl, ol;
  int32_t dims, rows;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5
      || !typed(env, argv[0], napi_int8_array, (void **)&q, &ql)
      || !typed(env, argv[1], napi_int8_array, (void **)&data, &dl)
      || napi_get_value_int32(env, argv[2], &dims) != napi_ok || napi_get_value_int32(env, argv[3], &rows) != napi_ok
      || !typed(env, argv[4], napi_int32_array, (void **)&out, &ol)
      || dims <= 0 || rows < 0 || ql < (size_t)dims || ol < (size_t)rows || dl / (size_t)dims < (size_t)rows) {
    napi_throw_type_error(env, NULL, "dots8(q: Int8Array, data: Int8Array, dims, rows, out: Int32Array): data must hold rows x dims, q dims, out rows");
    return NULL;
  }
  dots8_rows(q, data, dims, rows, out);
  return NULL;
}

/*
 * dots8Lists(q: Int8Array, lists: Int8Array[], rows: Int32Array, dims, out: Int32Array): Promise<void>. The
 * products of dots8 for several lists (rows[i] rows of lists[i], written one list after another into out),
 * computed on a thread of libuv's pool: the search interface's keyword leg scores on the event loop meanwhile.
 * The arrays are held by references until the promise settles; their memory never moves in V8, and the
 * caller reads only rows that existed when it asked, which nothing rewrites.
 */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref *refs;
  size_t nrefs;
  const int8_t *q;
  const int8_t **lists;
  int32_t *rows;
  int32_t count, dims;
  int32_t *out;
} Lists8;

static void lists8_execute(napi_env env, void *data) {
  (void)env;
  Lists8 *w = (Lists8 *)data;
  int32_t *out = w->out;
  for (int32_t i = 0; i < w->count; i++) {
    dots8_rows(w->q, w->lists[i], w->dims, w->rows[i], out);
    out += w->rows[i];
  }
}

static void lists8_free(napi_env env, Lists8 *w) {
  for (size_t i = 0; i < w->nrefs; i++) napi_delete_reference(env, w->refs[i]);
  free(w->refs);
  free(w->lists);
  free(w->rows);
  free(w);
}

static void lists8_complete(napi_env env, napi_status status, void *data) {
  Lists8 *w = (Lists8 *)data;
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  if (status == napi_ok) napi_resolve_deferred(env, w->deferred, undefined);
  else {
    napi_value msg, err;
    napi_create_string_utf8(env, "dots8Lists was cancelled", NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &err);
    napi_reject_deferred(env, w->deferred, err);
  }
  napi_delete_async_work(env, w->work);
  lists8_free(env, w);
}

static napi_value dots8_lists(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  const int8_t *q;
  const int32_t *rows;
  int32_t *out;
  size_t ql, rl, ol;
  int32_t dims;
  uint32_t count = 0;
  bool is_array = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5
      || !typed(env, argv[0], napi_int8_array, (void **)&q, &ql)
      || napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &count) != napi_ok
      || !typed(env, argv[2], napi_int32_array, (void **)&rows, &rl)
      || napi_get_value_int32(env, argv[3], &dims) != napi_ok
      || !typed(env, argv[4], napi_int32_array, (void **)&out, &ol)
      || dims <= 0 || ql < (size_t)dims || rl < count) {
    napi_throw_type_error(env, NULL, "dots8Lists(q: Int8Array, lists: Int8Array[], rows: Int32Array, dims, out: Int32Array)");
    return NULL;
  }
  Lists8 *w = calloc(1, sizeof(Lists8));
  w->lists = calloc(count ? count : 1, sizeof(int8_t *));
  w->rows = calloc(count ? count : 1, sizeof(int32_t));
  w->refs = calloc((size_t)count + 3, sizeof(napi_ref));
  w->q = q;
  w->out = out;
  w->dims = dims;
  w->count = (int32_t)count;
  size_t total = 0;
  int ok = w->lists && w->rows && w->refs;
  for (uint32_t i = 0; ok && i < count; i++) {
    napi_value list;
    const int8_t *data;
    size_t dl;
    ok = napi_get_element(env, argv[1], i, &list) == napi_ok && typed(env, list, napi_int8_array, (void **)&data, &dl)
      && rows[i] >= 0 && dl / (size_t)dims >= (size_t)rows[i]
      && napi_create_reference(env, list, 1, &w->refs[w->nrefs]) == napi_ok;
    if (ok) {
      w->nrefs++;
      w->lists[i] = data;
      w->rows[i] = rows[i];
      total += (size_t)rows[i];
    }
  }
  ok = ok && total <= ol
    && napi_create_reference(env, argv[0], 1, &w->refs[w->nrefs++]) == napi_ok
    && napi_create_reference(env, argv[4], 1, &w->refs[w->nrefs++]) == napi_ok;
  napi_value promise, name;
  if (ok) {
    ok = napi_create_promise(env, &w->deferred, &promise) == napi_ok
      && napi_create_string_utf8(env, "quarry.dots8Lists", NAPI_AUTO_LENGTH, &name) == napi_ok
      && napi_create_async_work(env, NULL, name, lists8_execute, lists8_complete, w, &w->work) == napi_ok;
    if (ok && napi_queue_async_work(env, w->work) != napi_ok) {
      napi_delete_async_work(env, w->work);
      ok = 0;
    }
  }
  if (!ok) {
    lists8_free(env, w);
    napi_throw_type_error(env, NULL, "dots8Lists: every list must hold its rows x dims codes, out the rows of all lists");
    return NULL;
  }
  return promise;
}

/*
 * The candidates of a scan, chosen where their products are computed: the k best rows by product times
 * the row's scale, over rows whose unit is not -1 and is present. A min-heap on score whose ties put the
 * higher unit lower, as VectorSet's TopK: (score, unit) orders every row, so the k chosen are TopK's
 * whatever the order rows come in.
 */
typedef struct {
  int32_t *units;
  double *scores;
  int32_t k, size;
} Top;

static inline int worse(double s1, int32_t u1, double s2, int32_t u2) { return s1 < s2 || (s1 == s2 && u1 > u2); }

static void top_push(Top *t, int32_t unit, double score) {
  int32_t *units = t->units;
  double *scores = t->scores;
  if (t->size < t->k) {
    int32_t i = t->size++;
    while (i > 0) {
      int32_t p = (i - 1) >> 1;
      if (!worse(score, unit, scores[p], units[p])) break;
      units[i] = units[p];
      scores[i] = scores[p];
      i = p;
    }
    units[i] = unit;
    scores[i] = score;
    return;
  }
  if (!worse(scores[0], units[0], score, unit)) return;
  int32_t i = 0;
  for (;;) {
    int32_t l = 2 * i + 1;
    if (l >= t->k) break;
    int32_t r = l + 1;
    int32_t m = r < t->k && worse(scores[r], units[r], scores[l], units[l]) ? r : l;
    if (!worse(scores[m], units[m], score, unit)) break;
    units[i] = units[m];
    scores[i] = scores[m];
    i = m;
  }
  units[i] = unit;
  scores[i] = score;
}

/*
 * dots8ListsTop(q: Int8Array, codes: Int8Array[], scales: Float32Array[], units: Int32Array[], rows: Int32Array,
 * dims, present: Uint8Array, k, outUnits: Int32Array, outScores: Float64Array): Promise<number>. dots8Lists and
 * the choice of candidates (VectorSet.takeCodes) in one go on a thread of libuv's pool: the event loop gets k
 * candidates back instead of every row's product to go through (at a million sections ~32,000 rows a query,
 * half a millisecond of the event loop). Resolves with how many candidates outUnits/outScores hold (heap
 * order). The arrays are held by references on their containers until the promise settles; a unit marked -1
 * or absent meanwhile may still be chosen (the caller checks the candidates again).
 */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref refs[7];
  int32_t nrefs;
  const int8_t *q;
  const int8_t **codes;
  const float **scales;
  const int32_t **units;
  int32_t *rows;
  int32_t count, dims, maxRows;
  const uint8_t *present;
  size_t presentLength;
  Top top;
  int failed;
} ListsTop;

static void lists_top_execute(napi_env env, void *data) {
  (void)env;
  ListsTop *w = (ListsTop *)data;
  int32_t *products = malloc((size_t)(w->maxRows ? w->maxRows : 1) * sizeof(int32_t));
  if (!products) {
    w->failed = 1;
    return;
  }
  Top *t = &w->top;
  double threshold = -INFINITY;
  for (int32_t i = 0; i < w->count; i++) {
    const int32_t rows = w->rows[i];
    dots8_rows(w->q, w->codes[i], w->dims, rows, products);
    const float *scales = w->scales[i];
    const int32_t *units = w->units[i];
    for (int32_t j = 0; j < rows; j++) {
      const double score = (double)products[j] * (double)scales[j];
      if (!(score >= threshold)) continue;
      const int32_t u = units[j];
      if (u < 0 || (size_t)u >= w->presentLength || !w->present[u]) continue;
      top_push(t, u, score);
      if (t->size == t->k) threshold = t->scores[0];
    }
  }
  free(products);
}

static void lists_top_free(napi_env env, ListsTop *w) {
  for (int32_t i = 0; i < w->nrefs; i++) napi_delete_reference(env, w->refs[i]);
  free(w->codes);
  free(w->scales);
  free(w->units);
  free(w->rows);
  free(w);
}

static void lists_top_complete(napi_env env, napi_status status, void *data) {
  ListsTop *w = (ListsTop *)data;
  if (status == napi_ok && !w->failed) {
    napi_value n;
    napi_create_int32(env, w->top.size, &n);
    napi_resolve_deferred(env, w->deferred, n);
  } else {
    napi_value msg, err;
    napi_create_string_utf8(env, w->failed ? "dots8ListsTop: out of memory" : "dots8ListsTop was cancelled", NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &err);
    napi_reject_deferred(env, w->deferred, err);
  }
  napi_delete_async_work(env, w->work);
  lists_top_free(env, w);
}

/* The typed array at `i` of the JS array `arr`, of type `want`, holding at least `min` elements. */
static int element(napi_env env, napi_value arr, uint32_t i, napi_typedarray_type want, size_t min, void **data) {
  napi_value v;
  size_t length;
  napi_typedarray_type type;
  /* Without napi_is_typedarray first (get_typedarray_info refuses anything else): ~750 arrays a query at a
     million sections, where each N-API call costs ~0.1 us of the event loop. */
  return napi_get_element(env, arr, i, &v) == napi_ok && napi_get_typedarray_info(env, v, &type, &length, data, NULL, NULL) == napi_ok
    && type == want && length >= min;
}

static napi_value dots8_lists_top(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  const int8_t *q;
  const int32_t *rows;
  const uint8_t *present;
  int32_t *out_units;
  double *out_scores;
  size_t ql, rl, pl, oul, osl;
  int32_t dims, k;
  uint32_t count = 0, n1 = 0, n2 = 0;
  bool a0 = false, a1 = false, a2 = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 10
      || !typed(env, argv[0], napi_int8_array, (void **)&q, &ql)
      || napi_is_array(env, argv[1], &a0) != napi_ok || !a0 || napi_get_array_length(env, argv[1], &count) != napi_ok
      || napi_is_array(env, argv[2], &a1) != napi_ok || !a1 || napi_get_array_length(env, argv[2], &n1) != napi_ok
      || napi_is_array(env, argv[3], &a2) != napi_ok || !a2 || napi_get_array_length(env, argv[3], &n2) != napi_ok
      || !typed(env, argv[4], napi_int32_array, (void **)&rows, &rl)
      || napi_get_value_int32(env, argv[5], &dims) != napi_ok
      || !typed(env, argv[6], napi_uint8_array, (void **)&present, &pl)
      || napi_get_value_int32(env, argv[7], &k) != napi_ok
      || !typed(env, argv[8], napi_int32_array, (void **)&out_units, &oul)
      || !typed(env, argv[9], napi_float64_array, (void **)&out_scores, &osl)
      || dims <= 0 || k <= 0 || ql < (size_t)dims || rl < count || n1 != count || n2 != count || oul < (size_t)k || osl < (size_t)k) {
    napi_throw_type_error(env, NULL, "dots8ListsTop(q: Int8Array, codes: Int8Array[], scales: Float32Array[], units: Int32Array[], rows: Int32Array, dims, present: Uint8Array, k, outUnits: Int32Array, outScores: Float64Array)");
    return NULL;
  }
  ListsTop *w = calloc(1, sizeof(ListsTop));
  if (!w) {
    napi_throw_error(env, NULL, "dots8ListsTop: out of memory");
    return NULL;
  }
  const size_t slots = count ? count : 1;
  w->codes = calloc(slots, sizeof(int8_t *));
  w->scales = calloc(slots, sizeof(float *));
  w->units = calloc(slots, sizeof(int32_t *));
  w->rows = calloc(slots, sizeof(int32_t));
  w->q = q;
  w->dims = dims;
  w->count = (int32_t)count;
  w->present = present;
  w->presentLength = pl;
  w->top.units = out_units;
  w->top.scores = out_scores;
  w->top.k = k;
  int ok = w->codes && w->scales && w->units && w->rows;
  for (uint32_t i = 0; ok && i < count; i++) {
    const size_t r = rows[i] < 0 ? 0 : (size_t)rows[i];
    ok = rows[i] >= 0
      && element(env, argv[1], i, napi_int8_array, r * (size_t)dims, (void **)&w->codes[i])
      && element(env, argv[2], i, napi_float32_array, r, (void **)&w->scales[i])
      && element(env, argv[3], i, napi_int32_array, r, (void **)&w->units[i]);
    if (ok) {
      w->rows[i] = rows[i];
      if (rows[i] > w->maxRows) w->maxRows = rows[i];
    }
  }
  /* The containers hold every list's arrays, so one reference each keeps them (and their memory) alive. */
  const int held[7] = {0, 1, 2, 3, 6, 8, 9};
  for (int i = 0; ok && i < 7; i++) {
    ok = napi_create_reference(env, argv[held[i]], 1, &w->refs[w->nrefs]) == napi_ok;
    if (ok) w->nrefs++;
  }
  napi_value promise, name;
  if (ok) {
    ok = napi_create_promise(env, &w->deferred, &promise) == napi_ok
      && napi_create_string_utf8(env, "quarry.dots8ListsTop", NAPI_AUTO_LENGTH, &name) == napi_ok
      && napi_create_async_work(env, NULL, name, lists_top_execute, lists_top_complete, w, &w->work) == napi_ok;
    if (ok && napi_queue_async_work(env, w->work) != napi_ok) {
      napi_delete_async_work(env, w->work);
      ok = 0;
    }
  }
  if (!ok) {
    lists_top_free(env, w);
    napi_throw_type_error(env, NULL, "dots8ListsTop: every list must hold its rows of codes (rows x dims), scales and units");
    return NULL;
  }
  return promise;
}

/*
 * The products of q with `count` vectors stored in blocks of BLOCK (blocked[(b * dims + i) * BLOCK + l] is
 * component i of vector b * BLOCK + l; blockedCopy in dots.ts, whose BLOCK must match): a block's sums are
 * lanes of vector registers. Each sum is still its products in double precision added in order, unfused, so
 * the scores are dots()'s over the same vectors to the last bit (the IVF probe's centroid scores: ~8,000
 * centroids of 100 dimensions in 0.11 ms, against 0.27 ms one vector at a time).
 */
#define BLOCK 32
__attribute__((target_clones("avx2", "default")))
static void blocked_dots_rows(const double *q, const float *blocked, int32_t dims, int32_t count, double *out) {
  for (int32_t b = 0; (int64_t)b * BLOCK < count; b++) {
    const float *t = blocked + (size_t)b * dims * BLOCK;
    double acc[BLOCK] = {0};
    for (int32_t i = 0; i < dims; i++) {
      const double x = q[i];
      for (int l = 0; l < BLOCK; l++) acc[l] += (double)t[i * BLOCK + l] * x;
    }
    const int32_t n = count - b * BLOCK < BLOCK ? count - b * BLOCK : BLOCK;
    for (int32_t l = 0; l < n; l++) out[b * BLOCK + l] = acc[l];
  }
}

/* blockedDots(q: Float64Array, blocked: Float32Array, dims, count, out: Float64Array): out[c] = q . vector c */
static napi_value blocked_dots(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  const double *q;
  const float *blocked;
  double *out;
  size_t ql, bl, ol;
  int32_t dims, count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5
      || !typed(env, argv[0], napi_float64_array, (void **)&q, &ql)
      || !typed(env, argv[1], napi_float32_array, (void **)&blocked, &bl)
      || napi_get_value_int32(env, argv[2], &dims) != napi_ok || napi_get_value_int32(env, argv[3], &count) != napi_ok
      || !typed(env, argv[4], napi_float64_array, (void **)&out, &ol)
      || dims <= 0 || count < 0 || ql < (size_t)dims || ol < (size_t)count
      || bl < ((size_t)count + BLOCK - 1) / BLOCK * BLOCK * (size_t)dims) {
    napi_throw_type_error(env, NULL, "blockedDots(q: Float64Array, blocked: Float32Array, dims, count, out: Float64Array): blocked must hold count vectors rounded up to blocks of 32");
    return NULL;
  }
  blocked_dots_rows(q, blocked, dims, count, out);
  return NULL;
}

/* Per element in token order, in double precision and unfused, as the JavaScript fallback: vectorising
   across d keeps each element's sequence of operations, so the sums are the same to the last bit. */
__attribute__((target_clones("avx2", "default")))
static void weighted_rows(double *acc, const float *vectors, const float *weights, const int32_t *rows, int32_t count, int32_t dims) {
  for (int32_t k = 0; k < count; k++) {
    const int32_t r = rows[k];
    const double w = (double)weights[r];
    const float *v = vectors + (size_t)r * dims;
    for (int32_t d = 0; d < dims; d++) acc[d] += w * (double)v[d];
  }
}

/*
 * weightedRows(acc: Float64Array, vectors: Float32Array, weights: Float32Array, dims, rows: Int32Array, count):
 * acc[d] += weights[r] * vectors[r * dims + d] for the first count rows r, in order (the default embedder's
 * pooling of word vectors). A row outside the table throws before anything is added.
 */
static napi_value weighted_rows_js(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  double *acc;
  const float *vectors, *weights;
  const int32_t *rows;
  size_t al, vl, wl, rl;
  int32_t dims, count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 6
      || !typed(env, argv[0], napi_float64_array, (void **)&acc, &al)
      || !typed(env, argv[1], napi_float32_array, (void **)&vectors, &vl)
      || !typed(env, argv[2], napi_float32_array, (void **)&weights, &wl)
      || napi_get_value_int32(env, argv[3], &dims) != napi_ok
      || !typed(env, argv[4], napi_int32_array, (void **)&rows, &rl)
      || napi_get_value_int32(env, argv[5], &count) != napi_ok
      || dims <= 0 || count < 0 || al < (size_t)dims || rl < (size_t)count) {
    napi_throw_type_error(env, NULL, "weightedRows(acc: Float64Array, vectors: Float32Array, weights: Float32Array, dims, rows: Int32Array, count)");
    return NULL;
  }
  const size_t n = vl / (size_t)dims < wl ? vl / (size_t)dims : wl;
  for (int32_t k = 0; k < count; k++) {
    if (rows[k] < 0 || (size_t)rows[k] >= n) {
      napi_throw_range_error(env, NULL, "weightedRows: a row is outside the table");
      return NULL;
    }
  }
  weighted_rows(acc, vectors, weights, rows, count, dims);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "dots", NAPI_AUTO_LENGTH, dots, NULL, &fn);
  napi_set_named_property(env, exports, "dots", fn);
  napi_create_function(env, "dots8", NAPI_AUTO_LENGTH, dots8, NULL, &fn);
  napi_set_named_property(env, exports, "dots8", fn);
  napi_create_function(env, "dots8Lists", NAPI_AUTO_LENGTH, dots8_lists, NULL, &fn);
  napi_set_named_property(env, exports, "dots8Lists", fn);
  napi_create_function(env, "dots8ListsTop", NAPI_AUTO_LENGTH, dots8_lists_top, NULL, &fn);
  napi_set_named_property(env, exports, "dots8ListsTop", fn);
  napi_create_function(env, "blockedDots", NAPI_AUTO_LENGTH, blocked_dots, NULL, &fn);
  napi_set_named_property(env, exports, "blockedDots", fn);
  napi_create_function(env, "weightedRows", NAPI_AUTO_LENGTH, weighted_rows_js, NULL, &fn);
  napi_set_named_property(env, exports, "weightedRows", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

/*
 * The dot products of a query with a run of vectors (dots8: of their int8 codes, for the
 * first pass of a scan; dots8ListsTop: that pass with the choice and rescoring of its candidates, off the
 * event loop; blockedDots: the IVF centroids), which are most of a hybrid search at a million sections; and the weighted sum of word
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
/* Queues `execute` on a thread of libuv's pool and makes the promise `complete` settles; false when it could not. */
static int queue_work(napi_env env, const char *name, napi_async_execute_callback execute, napi_async_complete_callback complete,
                      void *data, napi_deferred *deferred, napi_async_work *work, napi_value *promise) {
  napi_value resource;
  if (napi_create_promise(env, deferred, promise) != napi_ok
      || napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource) != napi_ok
      || napi_create_async_work(env, NULL, resource, execute, complete, data, work) != napi_ok) return 0;
  if (napi_queue_async_work(env, *work) == napi_ok) return 1;
  napi_delete_async_work(env, *work);
  return 0;
}

/* Rejects a queued job's promise with `message` (a job cancelled, or one whose thread ran out of memory). */
static void reject_with(napi_env env, napi_deferred deferred, const char *message) {
  napi_value msg, err;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, NULL, msg, &err);
  napi_reject_deferred(env, deferred, err);
}

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
  else reject_with(env, w->deferred, "dots8Lists was cancelled");
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
  napi_value promise;
  ok = ok && queue_work(env, "quarry.dots8Lists", lists8_execute, lists8_complete, w, &w->deferred, &w->work, &promise);
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
 * whatever the order rows come in. Each entry keeps where its row is (list, row) for the rescoring.
 */
typedef struct {
  int32_t *units;
  double *scores;
  int32_t *lists;
  int32_t *rows;
  int32_t k, size;
} Top;

static inline int worse(double s1, int32_t u1, double s2, int32_t u2) { return s1 < s2 || (s1 == s2 && u1 > u2); }

static inline void top_move(Top *t, int32_t to, int32_t from) {
  t->units[to] = t->units[from];
  t->scores[to] = t->scores[from];
  t->lists[to] = t->lists[from];
  t->rows[to] = t->rows[from];
}

static void top_push(Top *t, int32_t unit, double score, int32_t list, int32_t row) {
  int32_t *units = t->units;
  double *scores = t->scores;
  int32_t i;
  if (t->size < t->k) {
    i = t->size++;
    while (i > 0) {
      int32_t p = (i - 1) >> 1;
      if (!worse(score, unit, scores[p], units[p])) break;
      top_move(t, i, p);
      i = p;
    }
  } else {
    if (!worse(scores[0], units[0], score, unit)) return;
    i = 0;
    for (;;) {
      int32_t l = 2 * i + 1;
      if (l >= t->k) break;
      int32_t r = l + 1;
      int32_t m = r < t->k && worse(scores[r], units[r], scores[l], units[l]) ? r : l;
      if (!worse(scores[m], units[m], score, unit)) break;
      top_move(t, i, m);
      i = m;
    }
  }
  units[i] = unit;
  scores[i] = score;
  t->lists[i] = list;
  t->rows[i] = row;
}

/*
 * listHandle(codes: Int8Array, scales: Float32Array, units: Int32Array, vectors: Float32Array, dims): one IVF
 * list's arrays for dots8ListsTop, read once: a query then hands over one id per probed list (listHandleId, all
 * of them in one Int32Array) instead of four typed arrays (each N-API call costs ~0.1 us of the event loop,
 * and a query at a million sections probes ~250 lists). The handle holds its arrays (their memory never moves
 * in V8) until it is collected and no scan uses it; VectorSet makes a new one when a list's arrays are
 * replaced (grown, trimmed, restored).
 */
typedef struct Registry Registry;

typedef struct {
  const int8_t *codes;
  const float *scales;
  const int32_t *units;
  const float *vectors;
  size_t rows; /* rows all four arrays have room for */
  napi_ref refs[4];
  Registry *registry;
  int32_t id;
  int32_t busy; /* off-thread scans using it: it outlives its handle's collection until they end */
  int collected;
} ListHandle;

/*
 * The handles of one environment by id (listHandleId): dots8ListsTop takes an Int32Array of ids, one typed
 * array instead of a value per probed list (reading ~250 handles off a JavaScript array took ~0.19 ms of the
 * event loop a query at a million sections). Only this environment's thread touches it. Never freed: a
 * handle collected while the environment is torn down may still look its slot up.
 */
struct Registry {
  ListHandle **slots;
  int32_t length, capacity;
  int32_t *spare; /* ids free again */
  int32_t spares, spareCapacity;
};

static Registry *registry_of(napi_env env) {
  Registry *r = NULL;
  if (napi_get_instance_data(env, (void **)&r) == napi_ok && r) return r;
  r = calloc(1, sizeof(Registry));
  if (r && napi_set_instance_data(env, r, NULL, NULL) != napi_ok) {
    free(r);
    r = NULL;
  }
  return r;
}

/* A slot for h (its id set); 0 when out of memory. */
static int registry_add(Registry *r, ListHandle *h) {
  if (r->spares > 0) {
    h->id = r->spare[--r->spares];
  } else {
    if (r->length == r->capacity) {
      int32_t capacity = r->capacity ? 2 * r->capacity : 1024;
      ListHandle **slots = realloc(r->slots, (size_t)capacity * sizeof(ListHandle *));
      if (!slots) return 0;
      r->slots = slots;
      r->capacity = capacity;
    }
    h->id = r->length++;
  }
  r->slots[h->id] = h;
  h->registry = r;
  return 1;
}

/* Lets go of h once it is collected and no scan uses it: its arrays, its slot (the id is handed out again). */
static void list_handle_release(napi_env env, ListHandle *h) {
  if (!h->collected || h->busy > 0) return;
  Registry *r = h->registry;
  for (int i = 0; i < 4; i++) napi_delete_reference(env, h->refs[i]);
  r->slots[h->id] = NULL;
  if (r->spares == r->spareCapacity) {
    int32_t capacity = r->spareCapacity ? 2 * r->spareCapacity : 1024;
    int32_t *spare = realloc(r->spare, (size_t)capacity * sizeof(int32_t));
    /* Without room the id is simply never handed out again. */
    if (spare) {
      r->spare = spare;
      r->spareCapacity = capacity;
    }
  }
  if (r->spares < r->spareCapacity) r->spare[r->spares++] = h->id;
  free(h);
}

static void list_handle_free(napi_env env, void *data, void *hint) {
  (void)hint;
  ListHandle *h = data;
  h->collected = 1;
  list_handle_release(env, h);
}

static napi_value list_handle(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  size_t cl, sl, ul, vl;
  int32_t dims;
  ListHandle *h = calloc(1, sizeof(ListHandle));
  if (!h) {
    napi_throw_error(env, NULL, "listHandle: out of memory");
    return NULL;
  }
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5
      || !typed(env, argv[0], napi_int8_array, (void **)&h->codes, &cl)
      || !typed(env, argv[1], napi_float32_array, (void **)&h->scales, &sl)
      || !typed(env, argv[2], napi_int32_array, (void **)&h->units, &ul)
      || !typed(env, argv[3], napi_float32_array, (void **)&h->vectors, &vl)
      || napi_get_value_int32(env, argv[4], &dims) != napi_ok || dims <= 0) {
    free(h);
    napi_throw_type_error(env, NULL, "listHandle(codes: Int8Array, scales: Float32Array, units: Int32Array, vectors: Float32Array, dims)");
    return NULL;
  }
  size_t rows = cl / (size_t)dims;
  if (sl < rows) rows = sl;
  if (ul < rows) rows = ul;
  if (vl / (size_t)dims < rows) rows = vl / (size_t)dims;
  h->rows = rows;
  Registry *registry = registry_of(env);
  int made = 0;
  for (; made < 4; made++) if (napi_create_reference(env, argv[made], 1, &h->refs[made]) != napi_ok) break;
  napi_value external;
  if (made < 4 || !registry || !registry_add(registry, h)) {
    for (int i = 0; i < made; i++) napi_delete_reference(env, h->refs[i]);
    free(h);
    napi_throw_error(env, NULL, "listHandle: could not hold the arrays");
    return NULL;
  }
  if (napi_create_external(env, h, list_handle_free, NULL, &external) != napi_ok) {
    h->collected = 1;
    list_handle_release(env, h);
    napi_throw_error(env, NULL, "listHandle: could not hold the arrays");
    return NULL;
  }
  return external;
}

/* listHandleId(handle): the id dots8ListsTop takes for a listHandle, valid while the handle is reachable. */
static napi_value list_handle_id(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  void *h = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1
      || napi_get_value_external(env, argv[0], &h) != napi_ok || h == NULL) {
    napi_throw_type_error(env, NULL, "listHandleId(handle): a listHandle");
    return NULL;
  }
  napi_create_int32(env, ((ListHandle *)h)->id, &out);
  return out;
}

/*
 * dots8ListsTop(q8: Int8Array, qd: Float64Array, lists: Int32Array (listHandleId of each list), rows: Int32Array, dims,
 * present: Uint8Array, k, outUnits: Int32Array, outScores: Float64Array, outLists: Int32Array, outRows: Int32Array):
 * Promise<number>.
 * dots8Lists, the choice of candidates (VectorSet.takeCodes) and their exact scores in one go on a thread of
 * libuv's pool: the event loop gets k candidates back, each with its float score (qd . its row's vector, in
 * order and unfused as vector-set.ts's dot), its list (an index into `lists`) and row, instead of every row's
 * product to go through (at a million sections ~32,000 rows a query, half a millisecond of the event loop).
 * Resolves with how many candidates there are (heap order). A unit marked -1 or absent meanwhile may still be
 * chosen: the caller checks each candidate is still at that row. Each list's handle is held (busy) until the
 * scan ends, so one collected meanwhile keeps its arrays until then.
 */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref refs[8];
  int32_t nrefs;
  const int8_t *q8;
  const double *qd;
  const ListHandle **lists;
  int32_t *rows;
  int32_t count, dims, maxRows;
  const uint8_t *present;
  size_t presentLength;
  Top top;
  int failed;
  int32_t taken; /* lists marked busy */
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
  const int32_t dims = w->dims;
  double threshold = -INFINITY;
  for (int32_t i = 0; i < w->count; i++) {
    const ListHandle *h = w->lists[i];
    const int32_t rows = w->rows[i];
    dots8_rows(w->q8, h->codes, dims, rows, products);
    for (int32_t j = 0; j < rows; j++) {
      const double score = (double)products[j] * (double)h->scales[j];
      if (!(score >= threshold)) continue;
      const int32_t u = h->units[j];
      if (u < 0 || (size_t)u >= w->presentLength || !w->present[u]) continue;
      top_push(t, u, score, i, j);
      if (t->size == t->k) threshold = t->scores[0];
    }
  }
  free(products);
  /* The candidates' exact scores, from their float vectors (the approximate ones are not needed any more). */
  for (int32_t c = 0; c < t->size; c++) {
    const float *v = w->lists[t->lists[c]]->vectors + (size_t)t->rows[c] * dims;
    double d = 0;
    for (int32_t i = 0; i < dims; i++) d += (double)v[i] * w->qd[i];
    t->scores[c] = d;
  }
}

static void lists_top_free(napi_env env, ListsTop *w) {
  for (int32_t i = 0; i < w->nrefs; i++) napi_delete_reference(env, w->refs[i]);
  for (int32_t i = 0; i < w->taken; i++) {
    ListHandle *h = (ListHandle *)w->lists[i];
    h->busy--;
    list_handle_release(env, h);
  }
  free(w->lists);
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
    reject_with(env, w->deferred, w->failed ? "dots8ListsTop: out of memory" : "dots8ListsTop was cancelled");
  }
  napi_delete_async_work(env, w->work);
  lists_top_free(env, w);
}

static napi_value dots8_lists_top(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  const int8_t *q8;
  const double *qd;
  const int32_t *rows, *ids;
  const uint8_t *present;
  int32_t *out_units, *out_lists, *out_rows;
  double *out_scores;
  size_t q8l, qdl, il, rl, pl, oul, osl, oll, orl;
  int32_t dims, k;
  Registry *registry = registry_of(env);
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 11 || !registry
      || !typed(env, argv[0], napi_int8_array, (void **)&q8, &q8l)
      || !typed(env, argv[1], napi_float64_array, (void **)&qd, &qdl)
      || !typed(env, argv[2], napi_int32_array, (void **)&ids, &il)
      || !typed(env, argv[3], napi_int32_array, (void **)&rows, &rl)
      || napi_get_value_int32(env, argv[4], &dims) != napi_ok
      || !typed(env, argv[5], napi_uint8_array, (void **)&present, &pl)
      || napi_get_value_int32(env, argv[6], &k) != napi_ok
      || !typed(env, argv[7], napi_int32_array, (void **)&out_units, &oul)
      || !typed(env, argv[8], napi_float64_array, (void **)&out_scores, &osl)
      || !typed(env, argv[9], napi_int32_array, (void **)&out_lists, &oll)
      || !typed(env, argv[10], napi_int32_array, (void **)&out_rows, &orl)
      || dims <= 0 || k <= 0 || q8l < (size_t)dims || qdl < (size_t)dims || rl < il || il > INT32_MAX
      || oul < (size_t)k || osl < (size_t)k || oll < (size_t)k || orl < (size_t)k) {
    napi_throw_type_error(env, NULL, "dots8ListsTop(q8: Int8Array, qd: Float64Array, lists: Int32Array of listHandleId, rows: Int32Array, dims, present: Uint8Array, k, outUnits: Int32Array, outScores: Float64Array, outLists: Int32Array, outRows: Int32Array)");
    return NULL;
  }
  ListsTop *w = calloc(1, sizeof(ListsTop));
  if (!w) {
    napi_throw_error(env, NULL, "dots8ListsTop: out of memory");
    return NULL;
  }
  const uint32_t count = (uint32_t)il;
  const size_t slots = count ? count : 1;
  w->lists = calloc(slots, sizeof(ListHandle *));
  w->rows = calloc(slots, sizeof(int32_t));
  w->q8 = q8;
  w->qd = qd;
  w->dims = dims;
  w->count = (int32_t)count;
  w->present = present;
  w->presentLength = pl;
  w->top = (Top){ .units = out_units, .scores = out_scores, .lists = out_lists, .rows = out_rows, .k = k, .size = 0 };
  int ok = w->lists && w->rows;
  for (uint32_t i = 0; ok && i < count; i++) {
    const int32_t id = ids[i];
    ListHandle *h = id >= 0 && id < registry->length ? registry->slots[id] : NULL;
    ok = h != NULL && !h->collected && rows[i] >= 0 && (size_t)rows[i] <= h->rows;
    if (ok) {
      h->busy++;
      w->taken++;
      w->lists[i] = h;
      w->rows[i] = rows[i];
      if (rows[i] > w->maxRows) w->maxRows = rows[i];
    }
  }
  /* The handles are held by being busy (above); these references keep the query and output arrays. */
  const int held[8] = {0, 1, 2, 5, 7, 8, 9, 10};
  for (int i = 0; ok && i < 8; i++) {
    ok = napi_create_reference(env, argv[held[i]], 1, &w->refs[w->nrefs]) == napi_ok;
    if (ok) w->nrefs++;
  }
  napi_value promise;
  ok = ok && queue_work(env, "quarry.dots8ListsTop", lists_top_execute, lists_top_complete, w, &w->deferred, &w->work, &promise);
  if (!ok) {
    lists_top_free(env, w);
    napi_throw_type_error(env, NULL, "dots8ListsTop: every list must be the id of a live listHandle with room for its rows");
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
  napi_create_function(env, "listHandle", NAPI_AUTO_LENGTH, list_handle, NULL, &fn);
  napi_set_named_property(env, exports, "listHandle", fn);
  napi_create_function(env, "listHandleId", NAPI_AUTO_LENGTH, list_handle_id, NULL, &fn);
  napi_set_named_property(env, exports, "listHandleId", fn);
  napi_create_function(env, "dots8ListsTop", NAPI_AUTO_LENGTH, dots8_lists_top, NULL, &fn);
  napi_set_named_property(env, exports, "dots8ListsTop", fn);
  napi_create_function(env, "blockedDots", NAPI_AUTO_LENGTH, blocked_dots, NULL, &fn);
  napi_set_named_property(env, exports, "blockedDots", fn);
  napi_create_function(env, "weightedRows", NAPI_AUTO_LENGTH, weighted_rows_js, NULL, &fn);
  napi_set_named_property(env, exports, "weightedRows", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

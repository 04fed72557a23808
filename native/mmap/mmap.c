/*
 * Two functions. mapPrivate: a private, copy-on-write memory map of an open file as an ArrayBuffer.
 * Node has no mmap of its own. Engine snapshots are read through it so a start touches only the
 * pages a search needs (the kernel's page cache holds the rest), instead of copying gigabytes into
 * fresh memory first. Writes to the buffer stay in this process; the file is never changed.
 * releaseFreeMemory: glibc's malloc_trim(0), which hands the free pages malloc keeps back to the kernel.
 * Typed arrays live in malloc's memory; an index built from the store grows its arrays by copying, and
 * glibc keeps the freed copies (RSS that nothing uses) until told to give them back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef struct {
  void *addr;
  size_t length;
} mapping;

static void unmap(napi_env env, void *data, void *hint) {
  (void)env;
  (void)data;
  mapping *m = hint;
  munmap(m->addr, m->length);
  free(m);
}

static napi_value fail(napi_env env, const char *what, int err) {
  char code[32];
  snprintf(code, sizeof code, "E%d", err);
  if (err == ENOMEM) snprintf(code, sizeof code, "ENOMEM");
  if (err == EACCES) snprintf(code, sizeof code, "EACCES");
  if (err == EBADF) snprintf(code, sizeof code, "EBADF");
  if (err == EINVAL) snprintf(code, sizeof code, "EINVAL");
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  napi_throw_error(env, code, message);
  return NULL;
}

/* mapPrivate(fd: number, length: number): ArrayBuffer */
static napi_value map_private(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) {
    napi_throw_type_error(env, NULL, "mapPrivate(fd, length) takes two numbers");
    return NULL;
  }
  int32_t fd;
  int64_t length;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_int64(env, argv[1], &length) != napi_ok || fd < 0 || length <= 0) {
    napi_throw_type_error(env, NULL, "mapPrivate(fd, length): fd >= 0 and length > 0");
    return NULL;
  }
  void *addr = mmap(NULL, (size_t)length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (addr == MAP_FAILED) return fail(env, "mmap", errno);
  mapping *m = malloc(sizeof *m);
  if (m == NULL) {
    munmap(addr, (size_t)length);
    return fail(env, "malloc", ENOMEM);
  }
  m->addr = addr;
  m->length = (size_t)length;
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, addr, (size_t)length, unmap, m, &buffer) != napi_ok) {
    munmap(addr, (size_t)length);
    free(m);
    napi_throw_error(env, NULL, "mapPrivate: this Node.js cannot wrap external memory in an ArrayBuffer");
    return NULL;
  }
  return buffer;
}

/* True when memory was handed back; false where there is no malloc_trim (not glibc) or nothing to give. */
static napi_value release_free_memory(napi_env env, napi_callback_info info) {
  int released = 0;
#ifdef __GLIBC__
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "mapPrivate", NAPI_AUTO_LENGTH, map_private, NULL, &fn);
  napi_set_named_property(env, exports, "mapPrivate", fn);
  napi_create_function(env, "releaseFreeMemory", NAPI_AUTO_LENGTH, release_free_memory, NULL, &fn);
  napi_set_named_property(env, exports, "releaseFreeMemory", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

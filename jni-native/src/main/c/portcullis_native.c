/*
 * Portcullis native crypto: the JNI glue over pn_core.c (OpenSSL 3 libcrypto).
 *
 * Callers (NativeCrypto's users in Java) check every index and length before calling, so the
 * glue only pins or addresses memory and calls the core. Nothing but the JNI calls of each
 * function happens inside a critical region. Only the Java_* entry points are exported
 * (-fvisibility=hidden). No exception message carries key material.
 */
#define _GNU_SOURCE /* setns */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "dev_portcullis_nativecrypto_NativeCrypto.h"
#include "pn_core.h"

#define EXPORT __attribute__((visibility("default")))

/* Must equal NativeCrypto.ABI_VERSION: a jar and a library of different builds refuse each other. */
#define PORTCULLIS_NATIVE_ABI 3

static void throw_new(JNIEnv *env, const char *cls, const char *msg) {
  jclass c = (*env)->FindClass(env, cls);
  if (c != NULL) {
    (*env)->ThrowNew(env, c, msg);
  }
}

static pn_hmac *hmac(jlong ctx) {
  return (pn_hmac *)(intptr_t)ctx;
}

/* A direct buffer's bytes from pos; Java checked pos + len <= limit. NULL: exception pending. */
static const unsigned char *direct(JNIEnv *env, jobject buf, jint pos) {
  unsigned char *a = (*env)->GetDirectBufferAddress(env, buf);
  if (a == NULL) {
    throw_new(env, "java/lang/IllegalArgumentException", "not a direct buffer");
    return NULL;
  }
  return a + pos;
}

/* Finishes into out[outOff..] and starts a new MAC. Returns the MAC length. */
static jint finish(JNIEnv *env, pn_hmac *h, jbyteArray out, jint outOff) {
  unsigned char md[PN_MAX_MD];
  size_t n = pn_hmac_final(h, md);
  (*env)->SetByteArrayRegion(env, out, outOff, (jsize)n, (const jbyte *)md);
  OPENSSL_cleanse(md, sizeof(md));
  return (jint)n;
}

/* Something that absorbs bytes: an HMAC or a digest under way. */
typedef void (*feed_fn)(void *ctx, const unsigned char *in, size_t len);

static void hmac_feed(void *ctx, const unsigned char *in, size_t len) {
  pn_hmac_update(ctx, in, len);
}

static void digest_feed(void *ctx, const unsigned char *in, size_t len) {
  pn_digest_update(ctx, in, len);
}

/* Feeds in[off, off+len) from a pinned array; nothing but the pinning inside the region. */
static void feed_array(JNIEnv *env, feed_fn f, void *ctx, jbyteArray in, jint off, jint len) {
  if (len == 0) {
    return;
  }
  jbyte *p = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
  if (p == NULL) {
    return; /* OutOfMemoryError pending */
  }
  f(ctx, (const unsigned char *)p + off, (size_t)len);
  (*env)->ReleasePrimitiveArrayCritical(env, in, p, JNI_ABORT);
}

/* Feeds a direct buffer's bytes [pos, pos+len); false with an exception pending if not direct. */
static int feed_direct(JNIEnv *env, feed_fn f, void *ctx, jobject buf, jint pos, jint len) {
  if (len == 0) {
    return 1;
  }
  const unsigned char *p = direct(env, buf, pos);
  if (p == NULL) {
    return 0;
  }
  f(ctx, p, (size_t)len);
  return 1;
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_abiVersion(
    JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return PORTCULLIS_NATIVE_ABI;
}

EXPORT JNIEXPORT jstring JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_openSslVersion(
    JNIEnv *env, jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, OpenSSL_version(OPENSSL_VERSION));
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacNew(
    JNIEnv *env, jclass cls, jint alg, jbyteArray key) {
  (void)cls;
  if (pn_digest_name(alg) == NULL) {
    throw_new(env, "java/lang/IllegalArgumentException", "unknown HMAC digest");
    return 0;
  }
  jsize klen = (*env)->GetArrayLength(env, key);
  jbyte *k = (*env)->GetByteArrayElements(env, key, NULL);
  if (k == NULL) {
    return 0; /* OutOfMemoryError pending */
  }
  pn_hmac *h = pn_hmac_new(alg, (const unsigned char *)k, (size_t)klen);
  OPENSSL_cleanse(k, (size_t)klen);
  (*env)->ReleaseByteArrayElements(env, key, k, JNI_ABORT);
  if (h == NULL) {
    throw_new(env, "java/lang/OutOfMemoryError", "HMAC context");
    return 0;
  }
  return (jlong)(intptr_t)h;
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacDup(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)cls;
  pn_hmac *c = pn_hmac_dup(hmac(ctx));
  if (c == NULL) {
    throw_new(env, "java/lang/OutOfMemoryError", "HMAC copy");
    return 0;
  }
  return (jlong)(intptr_t)c;
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacFree(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)env;
  (void)cls;
  pn_hmac_free(hmac(ctx));
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacReset(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)env;
  (void)cls;
  pn_hmac_reset(hmac(ctx));
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacUpdate(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len) {
  (void)cls;
  feed_array(env, hmac_feed, hmac(ctx), in, off, len);
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacUpdateDirect(
    JNIEnv *env, jclass cls, jlong ctx, jobject buf, jint pos, jint len) {
  (void)cls;
  feed_direct(env, hmac_feed, hmac(ctx), buf, pos, len);
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacFinal(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray out, jint outOff) {
  (void)cls;
  return finish(env, hmac(ctx), out, outOff);
}

/*
 * The hot path: a whole MAC over in[off, off+len) into out[outOff..] in one call. Both arrays
 * are pinned (critical regions may nest) and the MAC is written in place: no copy in or out, no
 * other JNI call. Java checked both ranges.
 */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacOneShot(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len, jbyteArray out,
    jint outOff) {
  (void)cls;
  /* One pin (the input); the MAC goes out through a stack buffer and SetByteArrayRegion, so the
   * output array is never pinned. (Against pinning both: no difference measurable here.) */
  pn_hmac *h = hmac(ctx);
  feed_array(env, hmac_feed, h, in, off, len);
  if ((*env)->ExceptionCheck(env)) {
    return 0; /* OutOfMemoryError pending */
  }
  return finish(env, h, out, outOff);
}

/* A whole MAC over staging[0, len), written over it; no JNI function (see gcm_call). */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacOneShotStaged(
    JNIEnv *env, jclass cls, jlong ctx, jlong staging, jint len) {
  (void)env;
  (void)cls;
  unsigned char *s = (unsigned char *)(intptr_t)staging;
  pn_hmac_update(hmac(ctx), s, (size_t)len);
  return (jint)pn_hmac_final(hmac(ctx), s);
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacOneShotDirect(
    JNIEnv *env, jclass cls, jlong ctx, jobject buf, jint pos, jint len, jbyteArray out,
    jint outOff) {
  (void)cls;
  if (!feed_direct(env, hmac_feed, hmac(ctx), buf, pos, len)) {
    return 0;
  }
  return finish(env, hmac(ctx), out, outOff);
}

/* ---- message digests ------------------------------------------------------------------------ */

static pn_digest *digest(jlong ctx) {
  return (pn_digest *)(intptr_t)ctx;
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestNew(
    JNIEnv *env, jclass cls, jint alg) {
  (void)cls;
  pn_digest *d = pn_digest_new(alg);
  if (d == NULL) {
    throw_new(env, "java/lang/IllegalArgumentException", "unknown digest");
    return 0;
  }
  return (jlong)(intptr_t)d;
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestDup(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)cls;
  pn_digest *c = pn_digest_dup(digest(ctx));
  if (c == NULL) {
    throw_new(env, "java/lang/OutOfMemoryError", "digest copy");
    return 0;
  }
  return (jlong)(intptr_t)c;
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestFree(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)env;
  (void)cls;
  pn_digest_free(digest(ctx));
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestReset(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)env;
  (void)cls;
  pn_digest_reset(digest(ctx));
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestUpdate(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len) {
  (void)cls;
  feed_array(env, digest_feed, digest(ctx), in, off, len);
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestUpdateDirect(
    JNIEnv *env, jclass cls, jlong ctx, jobject buf, jint pos, jint len) {
  (void)cls;
  feed_direct(env, digest_feed, digest(ctx), buf, pos, len);
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_digestFinal(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray out, jint outOff) {
  (void)cls;
  unsigned char md[PN_MAX_MD];
  size_t n = pn_digest_final(digest(ctx), md);
  (*env)->SetByteArrayRegion(env, out, outOff, (jsize)n, (const jbyte *)md);
  return (jint)n;
}

/* ---- AES ------------------------------------------------------------------------------------ */

static pn_cipher *cipher(jlong ctx) {
  return (pn_cipher *)(intptr_t)ctx;
}

/* Copies a small Java array into a C buffer; NULL with an exception pending on failure. */
static unsigned char *copy_in(JNIEnv *env, jbyteArray a, jsize *len) {
  *len = (*env)->GetArrayLength(env, a);
  unsigned char *b = OPENSSL_malloc((size_t)(*len > 0 ? *len : 1));
  if (b == NULL) {
    throw_new(env, "java/lang/OutOfMemoryError", "cipher parameters");
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, a, 0, *len, (jbyte *)b);
  return b;
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherNew(
    JNIEnv *env, jclass cls, jint mode, jboolean encrypt, jbyteArray key, jbyteArray iv) {
  (void)cls;
  jsize klen = 0;
  jsize ivlen = 0;
  unsigned char *k = copy_in(env, key, &klen);
  if (k == NULL) {
    return 0;
  }
  unsigned char *v = copy_in(env, iv, &ivlen);
  if (v == NULL) {
    OPENSSL_clear_free(k, (size_t)klen);
    return 0;
  }
  pn_cipher *c = pn_cipher_new(mode, encrypt == JNI_TRUE, k, (size_t)klen, v, (size_t)ivlen);
  OPENSSL_clear_free(k, (size_t)(klen > 0 ? klen : 1));
  OPENSSL_free(v);
  if (c == NULL) {
    throw_new(env, "java/lang/IllegalArgumentException", "AES key or IV not accepted");
    return 0;
  }
  return (jlong)(intptr_t)c;
}

/* A new IV of the same length on a keyed context (the key schedule is kept); false on failure. */
EXPORT JNIEXPORT jboolean JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherRestart(
    JNIEnv *env, jclass cls, jlong ctx, jboolean encrypt, jbyteArray iv) {
  (void)cls;
  unsigned char v[64];
  jsize n = (*env)->GetArrayLength(env, iv);
  if (n < 1 || n > (jsize)sizeof(v)) {
    return JNI_FALSE;
  }
  (*env)->GetByteArrayRegion(env, iv, 0, n, (jbyte *)v);
  return pn_cipher_restart(cipher(ctx), encrypt == JNI_TRUE, v) ? JNI_TRUE : JNI_FALSE;
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherFree(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)env;
  (void)cls;
  pn_cipher_free(cipher(ctx));
}

EXPORT JNIEXPORT jboolean JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherAad(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len) {
  (void)cls;
  if (len == 0) {
    return JNI_TRUE;
  }
  jbyte *p = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
  if (p == NULL) {
    return JNI_FALSE;
  }
  int ok = pn_cipher_aad(cipher(ctx), (const unsigned char *)p + off, (size_t)len);
  (*env)->ReleasePrimitiveArrayCritical(env, in, p, JNI_ABORT);
  return ok ? JNI_TRUE : JNI_FALSE;
}

/* in[off, off+len) into out[outOff..]; Java made room for len (GCM, CTR) or len + 16 (CBC). */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherUpdate(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len, jbyteArray out,
    jint outOff) {
  (void)cls;
  if (len == 0) {
    return 0;
  }
  jbyte *o = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (o == NULL) {
    return -1;
  }
  jbyte *p = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
  if (p == NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, out, o, JNI_ABORT);
    return -1;
  }
  int n = pn_cipher_update(cipher(ctx), (const unsigned char *)p + off, (size_t)len,
                           (unsigned char *)o + outOff);
  (*env)->ReleasePrimitiveArrayCritical(env, in, p, JNI_ABORT);
  (*env)->ReleasePrimitiveArrayCritical(env, out, o, n < 0 ? JNI_ABORT : 0);
  return n;
}

/* Finishes into out[outOff..] (room for 16); bytes written, or -1 (padding or tag). */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherFinal(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray out, jint outOff) {
  (void)cls;
  unsigned char b[32];
  int n = pn_cipher_final(cipher(ctx), b);
  if (n > 0) {
    (*env)->SetByteArrayRegion(env, out, outOff, n, (const jbyte *)b);
  }
  OPENSSL_cleanse(b, sizeof(b));
  return n;
}

EXPORT JNIEXPORT jboolean JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherGetTag(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray out, jint outOff, jint len) {
  (void)cls;
  unsigned char tag[16];
  if (len < 1 || len > 16 || !pn_cipher_get_tag(cipher(ctx), tag, (size_t)len)) {
    return JNI_FALSE;
  }
  (*env)->SetByteArrayRegion(env, out, outOff, len, (const jbyte *)tag);
  return JNI_TRUE;
}

EXPORT JNIEXPORT jboolean JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_cipherSetTag(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len) {
  (void)cls;
  unsigned char tag[16];
  if (len < 1 || len > 16) {
    return JNI_FALSE;
  }
  (*env)->GetByteArrayRegion(env, in, off, len, (jbyte *)tag);
  return pn_cipher_set_tag(cipher(ctx), tag, (size_t)len) ? JNI_TRUE : JNI_FALSE;
}

/* ---- GCM in one call ------------------------------------------------------------------------ */

/*
 * Every JNI function a native method calls (pinning, releasing, copying a region) is a round trip
 * into the VM with a thread-state change and a memory fence, 5-10 ns each here: the first one-call
 * GCM (IV copied in, three arrays pinned) spent ~65 ns more than the same C (jni-native docs). So
 * the IV, and additional data up to PN_PARAMS_AAD bytes, come in a direct buffer the Java side
 * keeps per cipher and whose address it fetched once (bufferAddress): the IV at params, the
 * additional data at params + 128. Larger additional data comes as an array (aad non-NULL). out
 * NULL means the output goes into in's array (in place or after it): one pin fewer.
 */
static jint gcm_call(JNIEnv *env, jlong ctx, int seal, jlong params, jbyteArray aad, jint aadLen,
                     jbyteArray in, jint off, jint len, jbyteArray out, jint outOff,
                     jint tagLen) {
  const unsigned char *v = (const unsigned char *)(intptr_t)params;
  const unsigned char *ad = v + 128;
  jbyte *a = NULL;
  jbyte *p = NULL;
  jbyte *o = NULL;
  jint n = -1;
  if (aad != NULL && aadLen > 0) {
    if ((a = (*env)->GetPrimitiveArrayCritical(env, aad, NULL)) == NULL) {
      goto done;
    }
    ad = (const unsigned char *)a;
  }
  if ((p = (*env)->GetPrimitiveArrayCritical(env, in, NULL)) == NULL) {
    goto done;
  }
  if (out != NULL && (o = (*env)->GetPrimitiveArrayCritical(env, out, NULL)) == NULL) {
    goto done;
  }
  {
    const unsigned char *src = (const unsigned char *)p + off;
    unsigned char *dst = (unsigned char *)(o != NULL ? o : p) + outOff;
    n = seal ? pn_gcm_seal(cipher(ctx), v, ad, (size_t)aadLen, src, (size_t)len, dst,
                           (size_t)tagLen)
             : pn_gcm_open(cipher(ctx), v, ad, (size_t)aadLen, src, (size_t)len, src + len,
                           (size_t)tagLen, dst);
  }
done:
  if (o != NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, out, o, 0);
  }
  if (p != NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, in, p, 0);
  }
  if (a != NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, aad, a, JNI_ABORT);
  }
  return n;
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_bufferAddress(
    JNIEnv *env, jclass cls, jobject buf) {
  (void)cls;
  return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buf);
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_gcm(
    JNIEnv *env, jclass cls, jlong ctx, jboolean seal, jlong params, jbyteArray aad, jint aadLen,
    jbyteArray in, jint off, jint len, jbyteArray out, jint outOff, jint tagLen) {
  (void)cls;
  return gcm_call(env, ctx, seal == JNI_TRUE, params, aad, aadLen, in, off, len, out, outOff,
                  tagLen);
}

/*
 * GCM in one call with no JNI function at all: IV, additional data and text all sit in the
 * cipher's direct buffer (IV at params, additional data at params + 128, text at params + 384,
 * sealed or opened in place, the tag right after the text). Java copies a small packet in and out
 * faster than the VM pins and releases two arrays; larger ones go through gcmSeal/gcmOpen.
 */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_gcmStaged(
    JNIEnv *env, jclass cls, jlong ctx, jboolean seal, jlong params, jint aadLen, jint len,
    jint tagLen) {
  (void)env;
  (void)cls;
  unsigned char *v = (unsigned char *)(intptr_t)params;
  unsigned char *text = v + 384;
  return seal == JNI_TRUE
             ? pn_gcm_seal(cipher(ctx), v, v + 128, (size_t)aadLen, text, (size_t)len, text,
                           (size_t)tagLen)
             : pn_gcm_open(cipher(ctx), v, v + 128, (size_t)aadLen, text, (size_t)len,
                           text + len, (size_t)tagLen, text);
}

/*
 * The one entry point that is not crypto: moves the calling thread into the network namespace
 * whose file is nsPath (/run/netns/NAME), for the benchmarks' network lab; sockets the thread
 * creates afterwards live there. Returns 0, or errno.
 */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_enterNetworkNamespace(
    JNIEnv *env, jclass cls, jstring nsPath) {
  (void)cls;
  const char *path = (*env)->GetStringUTFChars(env, nsPath, NULL);
  if (path == NULL) {
    return ENOMEM; /* OutOfMemoryError pending */
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  int err = fd < 0 ? errno : 0;
  (*env)->ReleaseStringUTFChars(env, nsPath, path);
  if (fd < 0) {
    return err;
  }
  int r = setns(fd, CLONE_NEWNET);
  err = r < 0 ? errno : 0;
  close(fd);
  return err;
}

/*
 * Portcullis native crypto: JNI over OpenSSL 3 libcrypto.
 *
 * HMAC contexts are EVP_MAC_CTX objects keyed once; every MAC re-initialises from the stored
 * key schedule (EVP_MAC_init with a NULL key), so a call costs the hashing and no key setup.
 * Only the Java_* entry points are exported (-fvisibility=hidden). No Java exception is
 * thrown from here with secret material in its message.
 */
#include <jni.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "dev_portcullis_nativecrypto_NativeCrypto.h"
#include "pn_core.h"

#define EXPORT __attribute__((visibility("default")))

/* Must equal NativeCrypto.ABI_VERSION: a jar and a library of different builds refuse each other. */
#define PORTCULLIS_NATIVE_ABI 1

static void throw_new(JNIEnv *env, const char *cls, const char *msg) {
  jclass c = (*env)->FindClass(env, cls);
  if (c != NULL) {
    (*env)->ThrowNew(env, c, msg);
  }
}

/* The reason of the last OpenSSL error, without key material (OpenSSL never puts any there). */
static void throw_openssl(JNIEnv *env, const char *what) {
  char buf[256];
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) {
    throw_new(env, "java/lang/IllegalStateException", what);
    return;
  }
  char reason[200];
  ERR_error_string_n(e, reason, sizeof(reason));
  strncpy(buf, what, sizeof(buf) - 1);
  buf[sizeof(buf) - 1] = '\0';
  size_t n = strlen(buf);
  if (n + 2 < sizeof(buf)) {
    buf[n++] = ':';
    buf[n++] = ' ';
    buf[n] = '\0';
    strncat(buf, reason, sizeof(buf) - n - 1);
  }
  throw_new(env, "java/lang/IllegalStateException", buf);
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
  EVP_MAC_CTX *ctx = pn_hmac_new(alg, (const unsigned char *)k, (size_t)klen);
  OPENSSL_cleanse(k, (size_t)klen);
  (*env)->ReleaseByteArrayElements(env, key, k, JNI_ABORT);
  if (ctx == NULL) {
    throw_openssl(env, "HMAC init failed");
    return 0;
  }
  return (jlong)(intptr_t)ctx;
}

EXPORT JNIEXPORT jlong JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacDup(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)cls;
  EVP_MAC_CTX *c = EVP_MAC_CTX_dup((EVP_MAC_CTX *)(intptr_t)ctx);
  if (c == NULL) {
    throw_openssl(env, "HMAC copy failed");
    return 0;
  }
  return (jlong)(intptr_t)c;
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacFree(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)env;
  (void)cls;
  EVP_MAC_CTX_free((EVP_MAC_CTX *)(intptr_t)ctx);
}

/* Starts a new MAC from the stored key schedule. */
EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacReset(
    JNIEnv *env, jclass cls, jlong ctx) {
  (void)cls;
  if (!pn_hmac_reset((EVP_MAC_CTX *)(intptr_t)ctx)) {
    throw_openssl(env, "HMAC reset failed");
  }
}

/* Java checked 0 <= off <= off + len <= in.length before the call. */
EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacUpdate(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len) {
  (void)cls;
  if (len == 0) {
    return;
  }
  jbyte *p = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
  if (p == NULL) {
    return;
  }
  int ok = pn_hmac_update((EVP_MAC_CTX *)(intptr_t)ctx, (const unsigned char *)p + off, (size_t)len);
  (*env)->ReleasePrimitiveArrayCritical(env, in, p, JNI_ABORT);
  if (!ok) {
    throw_openssl(env, "HMAC update failed");
  }
}

/* A direct buffer's bytes from pos; Java checked pos + len <= capacity. NULL: exception pending. */
static const unsigned char *direct(JNIEnv *env, jobject buf, jint pos) {
  unsigned char *a = (*env)->GetDirectBufferAddress(env, buf);
  if (a == NULL) {
    throw_new(env, "java/lang/IllegalArgumentException", "not a direct buffer");
    return NULL;
  }
  return a + pos;
}

EXPORT JNIEXPORT void JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacUpdateDirect(
    JNIEnv *env, jclass cls, jlong ctx, jobject buf, jint pos, jint len) {
  (void)cls;
  if (len == 0) {
    return;
  }
  const unsigned char *p = direct(env, buf, pos);
  if (p != NULL && !pn_hmac_update((EVP_MAC_CTX *)(intptr_t)ctx, p, (size_t)len)) {
    throw_openssl(env, "HMAC update failed");
  }
}

/* Finishes into out[outOff..], then re-initialises for the next MAC. Returns the MAC length. */
static jint finish(JNIEnv *env, EVP_MAC_CTX *c, jbyteArray out, jint outOff) {
  unsigned char md[EVP_MAX_MD_SIZE];
  size_t n = pn_hmac_final(c, md);
  if (n == 0) {
    OPENSSL_cleanse(md, sizeof(md));
    throw_openssl(env, "HMAC final failed");
    return 0;
  }
  (*env)->SetByteArrayRegion(env, out, outOff, (jsize)n, (const jbyte *)md);
  OPENSSL_cleanse(md, sizeof(md));
  return (jint)n;
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacFinal(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray out, jint outOff) {
  (void)cls;
  return finish(env, (EVP_MAC_CTX *)(intptr_t)ctx, out, outOff);
}

/* The hot path: a whole MAC over in[off, off+len) in one call. Java checked the bounds. */
EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacOneShot(
    JNIEnv *env, jclass cls, jlong ctx, jbyteArray in, jint off, jint len, jbyteArray out,
    jint outOff) {
  (void)cls;
  EVP_MAC_CTX *c = (EVP_MAC_CTX *)(intptr_t)ctx;
  if (len > 0) {
    jbyte *p = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
    if (p == NULL) {
      return 0;
    }
    int ok = pn_hmac_update(c, (const unsigned char *)p + off, (size_t)len);
    (*env)->ReleasePrimitiveArrayCritical(env, in, p, JNI_ABORT);
    if (!ok) {
      throw_openssl(env, "HMAC update failed");
      return 0;
    }
  }
  return finish(env, c, out, outOff);
}

EXPORT JNIEXPORT jint JNICALL Java_dev_portcullis_nativecrypto_NativeCrypto_hmacOneShotDirect(
    JNIEnv *env, jclass cls, jlong ctx, jobject buf, jint pos, jint len, jbyteArray out,
    jint outOff) {
  (void)cls;
  EVP_MAC_CTX *c = (EVP_MAC_CTX *)(intptr_t)ctx;
  if (len > 0) {
    const unsigned char *p = direct(env, buf, pos);
    if (p == NULL) {
      return 0;
    }
    if (!pn_hmac_update(c, p, (size_t)len)) {
      throw_openssl(env, "HMAC update failed");
      return 0;
    }
  }
  return finish(env, c, out, outOff);
}

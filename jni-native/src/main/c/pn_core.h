/*
 * The crypto core of the Portcullis native provider, free of JNI, so that a plain C harness
 * (src/test/c/harness.c) can run it under valgrind or AddressSanitizer.
 */
#ifndef PN_CORE_H
#define PN_CORE_H

#include <stddef.h>

#include <openssl/evp.h>

/* 1 MD5, 2 SHA-1, 3 SHA-256, 4 SHA-384, 5 SHA-512; NULL for anything else. */
const char *pn_digest_name(int alg);

/* A keyed HMAC context, or NULL (see ERR_get_error). The key bytes are not kept. */
EVP_MAC_CTX *pn_hmac_new(int alg, const unsigned char *key, size_t key_len);

/* Appends input; 1 on success. */
int pn_hmac_update(EVP_MAC_CTX *ctx, const unsigned char *in, size_t len);

/*
 * Writes the MAC to out (room for EVP_MAX_MD_SIZE bytes) and starts a new MAC from the stored
 * key schedule; returns its length, 0 on failure.
 */
size_t pn_hmac_final(EVP_MAC_CTX *ctx, unsigned char *out);

/* Starts a new MAC from the stored key schedule; 1 on success. */
int pn_hmac_reset(EVP_MAC_CTX *ctx);

#endif

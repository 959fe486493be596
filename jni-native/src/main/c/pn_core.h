/*
 * The crypto core of the Portcullis native provider, free of JNI, so that a plain C harness
 * (src/test/c/harness.c) can run it under valgrind or AddressSanitizer.
 *
 * HMAC (RFC 2104) is computed from precomputed inner and outer hash states: keying hashes
 * key^ipad and key^opad once; each MAC then copies the inner state (a struct copy), hashes
 * the message, and finishes with a copy of the outer state over the inner digest. This uses
 * OpenSSL's low-level digest functions, deprecated in 3.0 in favour of EVP: through EVP_MAC
 * the per-MAC setup costs more than hashing a small packet (see docs/native-provider.md).
 */
#ifndef PN_CORE_H
#define PN_CORE_H

#include <stddef.h>

#define PN_MAX_MD 64

typedef struct pn_hmac pn_hmac;

/* 1 MD5, 2 SHA-1, 3 SHA-256, 4 SHA-384, 5 SHA-512; NULL for anything else. */
const char *pn_digest_name(int alg);

/* A keyed HMAC, ready for a first MAC; NULL for an unknown alg or no memory. */
pn_hmac *pn_hmac_new(int alg, const unsigned char *key, size_t key_len);

/* An independent copy in the same state; NULL for no memory. */
pn_hmac *pn_hmac_dup(const pn_hmac *h);

/* Wipes and frees; NULL is fine. */
void pn_hmac_free(pn_hmac *h);

/* Length of the MAC in bytes. */
size_t pn_hmac_size(const pn_hmac *h);

/* Appends input to the MAC under way. */
void pn_hmac_update(pn_hmac *h, const unsigned char *in, size_t len);

/* Writes the MAC (pn_hmac_size bytes, out has room for PN_MAX_MD) and starts a new one. */
size_t pn_hmac_final(pn_hmac *h, unsigned char *out);

/* Discards what was fed; starts a new MAC. */
void pn_hmac_reset(pn_hmac *h);

/* A message digest (3 SHA-256, 5 SHA-512), or NULL. Reuses the HMAC states' machinery. */
typedef struct pn_digest pn_digest;

pn_digest *pn_digest_new(int alg);
pn_digest *pn_digest_dup(const pn_digest *d);
void pn_digest_free(pn_digest *d);
size_t pn_digest_size(const pn_digest *d);
void pn_digest_update(pn_digest *d, const unsigned char *in, size_t len);
/* Writes the digest (out has room for PN_MAX_MD) and starts a new one. */
size_t pn_digest_final(pn_digest *d, unsigned char *out);
void pn_digest_reset(pn_digest *d);

/*
 * AES through EVP (not deprecated). mode: 1 GCM, 2 CTR, 3 CBC with PKCS#5 padding; key 16, 24
 * or 32 bytes; iv 12+ bytes for GCM (any length OpenSSL accepts), 16 for CTR and CBC.
 */
typedef struct evp_cipher_ctx_st pn_cipher;

/* The AES modes, as AesMode.code in Java: one list, the same numbers. */
enum pn_aes_mode { PN_AES_GCM = 1, PN_AES_CTR = 2, PN_AES_CBC = 3 };

pn_cipher *pn_cipher_new(int mode, int encrypt, const unsigned char *key, size_t key_len,
                         const unsigned char *iv, size_t iv_len);
void pn_cipher_free(pn_cipher *c);
/* Starts over with a new IV of the same length, keeping the key schedule; 1 on success. */
int pn_cipher_restart(pn_cipher *c, int encrypt, const unsigned char *iv);
/* GCM additional authenticated data, before any text; 1 on success. */
int pn_cipher_aad(pn_cipher *c, const unsigned char *aad, size_t len);
/* Bytes written to out (room for len + 16), or -1. */
int pn_cipher_update(pn_cipher *c, const unsigned char *in, size_t len, unsigned char *out);
/* Bytes written to out (room for 16), or -1: bad padding, or a GCM tag that does not verify. */
int pn_cipher_final(pn_cipher *c, unsigned char *out);
/* GCM: the tag after an encryption's final / the expected tag before a decryption's final. */
int pn_cipher_get_tag(pn_cipher *c, unsigned char *tag, size_t len);
int pn_cipher_set_tag(pn_cipher *c, const unsigned char *tag, size_t len);

/*
 * GCM in one call, what a sender or receiver does per packet (the JCE's init + updateAAD +
 * doFinal): restart c (a GCM context) with iv (of the length c was made with), authenticate aad,
 * and seal in[0, len) into out (room for len + tag_len: text, then tag), or open in[0, len) with
 * the tag that follows it in tag[0, tag_len) into out (room for len). in and out may be the same
 * buffer. Seal returns len + tag_len, open returns len; both return -1 on failure, and a failed
 * open leaves out[0, len) zeroed: nothing unauthenticated is released.
 */
int pn_gcm_seal(pn_cipher *c, const unsigned char *iv, const unsigned char *aad, size_t aad_len,
                const unsigned char *in, size_t len, unsigned char *out, size_t tag_len);
int pn_gcm_open(pn_cipher *c, const unsigned char *iv, const unsigned char *aad, size_t aad_len,
                const unsigned char *in, size_t len, const unsigned char *tag, size_t tag_len,
                unsigned char *out);

#endif

/* Low-level digests: deprecated in OpenSSL 3, used on purpose (pn_core.h). */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "pn_core.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

typedef union {
  MD5_CTX md5;
  SHA_CTX sha1;
  SHA256_CTX sha256;
  SHA512_CTX sha512; /* SHA-384 too */
} pn_state;

struct pn_hmac {
  int alg;
  size_t block;
  size_t size;
  pn_state inner; /* after key ^ ipad */
  pn_state outer; /* after key ^ opad */
  pn_state work;  /* the MAC under way */
};

const char *pn_digest_name(int alg) {
  switch (alg) {
    case 1: return "MD5";
    case 2: return "SHA1";
    case 3: return "SHA256";
    case 4: return "SHA384";
    case 5: return "SHA512";
    default: return NULL;
  }
}

static void init(int alg, pn_state *s) {
  switch (alg) {
    case 1: MD5_Init(&s->md5); break;
    case 2: SHA1_Init(&s->sha1); break;
    case 3: SHA256_Init(&s->sha256); break;
    case 4: SHA384_Init(&s->sha512); break;
    default: SHA512_Init(&s->sha512); break;
  }
}

static void update(int alg, pn_state *s, const unsigned char *in, size_t len) {
  switch (alg) {
    case 1: MD5_Update(&s->md5, in, len); break;
    case 2: SHA1_Update(&s->sha1, in, len); break;
    case 3: SHA256_Update(&s->sha256, in, len); break;
    case 4: SHA384_Update(&s->sha512, in, len); break;
    default: SHA512_Update(&s->sha512, in, len); break;
  }
}

static void final(int alg, pn_state *s, unsigned char *out) {
  switch (alg) {
    case 1: MD5_Final(out, &s->md5); break;
    case 2: SHA1_Final(out, &s->sha1); break;
    case 3: SHA256_Final(out, &s->sha256); break;
    case 4: SHA384_Final(out, &s->sha512); break;
    default: SHA512_Final(out, &s->sha512); break;
  }
}

pn_hmac *pn_hmac_new(int alg, const unsigned char *key, size_t key_len) {
  static const size_t blocks[] = {0, 64, 64, 64, 128, 128};
  static const size_t sizes[] = {0, 16, 20, 32, 48, 64};
  if (pn_digest_name(alg) == NULL) {
    return NULL;
  }
  pn_hmac *h = OPENSSL_zalloc(sizeof(*h));
  if (h == NULL) {
    return NULL;
  }
  h->alg = alg;
  h->block = blocks[alg];
  h->size = sizes[alg];
  unsigned char k[128];
  unsigned char pad[128];
  memset(k, 0, sizeof(k));
  if (key_len > h->block) {
    /* RFC 2104: a key longer than the block is hashed first. */
    init(alg, &h->work);
    update(alg, &h->work, key, key_len);
    final(alg, &h->work, k);
  } else if (key_len > 0) {
    memcpy(k, key, key_len);
  }
  for (size_t i = 0; i < h->block; i++) {
    pad[i] = k[i] ^ 0x36;
  }
  init(alg, &h->inner);
  update(alg, &h->inner, pad, h->block);
  for (size_t i = 0; i < h->block; i++) {
    pad[i] = k[i] ^ 0x5c;
  }
  init(alg, &h->outer);
  update(alg, &h->outer, pad, h->block);
  OPENSSL_cleanse(k, sizeof(k));
  OPENSSL_cleanse(pad, sizeof(pad));
  h->work = h->inner;
  return h;
}

pn_hmac *pn_hmac_dup(const pn_hmac *h) {
  pn_hmac *c = OPENSSL_malloc(sizeof(*c));
  if (c != NULL) {
    memcpy(c, h, sizeof(*c));
  }
  return c;
}

void pn_hmac_free(pn_hmac *h) {
  OPENSSL_clear_free(h, sizeof(*h));
}

size_t pn_hmac_size(const pn_hmac *h) {
  return h->size;
}

void pn_hmac_update(pn_hmac *h, const unsigned char *in, size_t len) {
  if (len > 0) {
    update(h->alg, &h->work, in, len);
  }
}

size_t pn_hmac_final(pn_hmac *h, unsigned char *out) {
  unsigned char inner[PN_MAX_MD];
  final(h->alg, &h->work, inner);
  h->work = h->outer;
  update(h->alg, &h->work, inner, h->size);
  final(h->alg, &h->work, out);
  OPENSSL_cleanse(inner, sizeof(inner));
  h->work = h->inner;
  return h->size;
}

void pn_hmac_reset(pn_hmac *h) {
  h->work = h->inner;
}

struct pn_digest {
  int alg;
  size_t size;
  pn_state state;
};

pn_digest *pn_digest_new(int alg) {
  if (alg != 3 && alg != 5) {
    return NULL;
  }
  pn_digest *d = OPENSSL_zalloc(sizeof(*d));
  if (d == NULL) {
    return NULL;
  }
  d->alg = alg;
  d->size = alg == 3 ? 32 : 64;
  init(alg, &d->state);
  return d;
}

pn_digest *pn_digest_dup(const pn_digest *d) {
  pn_digest *c = OPENSSL_malloc(sizeof(*c));
  if (c != NULL) {
    memcpy(c, d, sizeof(*c));
  }
  return c;
}

void pn_digest_free(pn_digest *d) {
  OPENSSL_clear_free(d, sizeof(*d));
}

size_t pn_digest_size(const pn_digest *d) {
  return d->size;
}

void pn_digest_update(pn_digest *d, const unsigned char *in, size_t len) {
  if (len > 0) {
    update(d->alg, &d->state, in, len);
  }
}

size_t pn_digest_final(pn_digest *d, unsigned char *out) {
  final(d->alg, &d->state, out);
  init(d->alg, &d->state);
  return d->size;
}

void pn_digest_reset(pn_digest *d) {
  init(d->alg, &d->state);
}

pn_cipher *pn_cipher_new(int mode, int encrypt, const unsigned char *key, size_t key_len,
                         const unsigned char *iv, size_t iv_len) {
  const EVP_CIPHER *cipher = NULL;
  int k = key_len == 16 ? 0 : key_len == 24 ? 1 : key_len == 32 ? 2 : -1;
  if (k < 0) {
    return NULL;
  }
  switch (mode) {
    case PN_AES_GCM: cipher = k == 0 ? EVP_aes_128_gcm() : k == 1 ? EVP_aes_192_gcm() : EVP_aes_256_gcm(); break;
    case PN_AES_CTR: cipher = k == 0 ? EVP_aes_128_ctr() : k == 1 ? EVP_aes_192_ctr() : EVP_aes_256_ctr(); break;
    case PN_AES_CBC: cipher = k == 0 ? EVP_aes_128_cbc() : k == 1 ? EVP_aes_192_cbc() : EVP_aes_256_cbc(); break;
    default: return NULL;
  }
  if (mode == PN_AES_GCM ? iv_len == 0 : iv_len != 16) {
    return NULL;
  }
  EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
  if (c == NULL) {
    return NULL;
  }
  int ok = EVP_CipherInit_ex(c, cipher, NULL, NULL, NULL, encrypt);
  if (ok && mode == PN_AES_GCM) {
    ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL);
  }
  if (ok && mode == PN_AES_CBC) {
    ok = EVP_CIPHER_CTX_set_padding(c, 1);
  }
  ok = ok && EVP_CipherInit_ex(c, NULL, NULL, key, iv, encrypt);
  if (!ok) {
    EVP_CIPHER_CTX_free(c);
    return NULL;
  }
  return c;
}

int pn_cipher_restart(pn_cipher *c, int encrypt, const unsigned char *iv) {
  return EVP_CipherInit_ex(c, NULL, NULL, NULL, iv, encrypt);
}

void pn_cipher_free(pn_cipher *c) {
  EVP_CIPHER_CTX_free(c); /* wipes the key schedule */
}

int pn_cipher_aad(pn_cipher *c, const unsigned char *aad, size_t len) {
  int n = 0;
  return len == 0 || EVP_CipherUpdate(c, NULL, &n, aad, (int)len);
}

int pn_cipher_update(pn_cipher *c, const unsigned char *in, size_t len, unsigned char *out) {
  int n = 0;
  if (len == 0) {
    return 0;
  }
  return EVP_CipherUpdate(c, out, &n, in, (int)len) ? n : -1;
}

int pn_cipher_final(pn_cipher *c, unsigned char *out) {
  int n = 0;
  return EVP_CipherFinal_ex(c, out, &n) ? n : -1;
}

int pn_cipher_get_tag(pn_cipher *c, unsigned char *tag, size_t len) {
  return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, (int)len, tag);
}

int pn_cipher_set_tag(pn_cipher *c, const unsigned char *tag, size_t len) {
  return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, (int)len, (void *)tag);
}

int pn_gcm_seal(pn_cipher *c, const unsigned char *iv, const unsigned char *aad, size_t aad_len,
                const unsigned char *in, size_t len, unsigned char *out, size_t tag_len) {
  int n = 0;
  int f = 0;
  if (tag_len < 1 || tag_len > 16 || len > (size_t)INT_MAX - 32 || aad_len > (size_t)INT_MAX
      || !EVP_CipherInit_ex(c, NULL, NULL, NULL, iv, 1)
      || (aad_len > 0 && !EVP_CipherUpdate(c, NULL, &n, aad, (int)aad_len))
      || (len > 0 && !EVP_CipherUpdate(c, out, &n, in, (int)len))
      || !EVP_CipherFinal_ex(c, out + (len > 0 ? n : 0), &f)) {
    return -1;
  }
  size_t text = (len > 0 ? (size_t)n : 0) + (size_t)f;
  if (!EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, (int)tag_len, out + text)) {
    return -1;
  }
  return (int)(text + tag_len);
}

int pn_gcm_open(pn_cipher *c, const unsigned char *iv, const unsigned char *aad, size_t aad_len,
                const unsigned char *in, size_t len, const unsigned char *tag, size_t tag_len,
                unsigned char *out) {
  int n = 0;
  int f = 0;
  if (tag_len < 1 || tag_len > 16 || len > (size_t)INT_MAX - 32 || aad_len > (size_t)INT_MAX) {
    return -1;
  }
  int ok = EVP_CipherInit_ex(c, NULL, NULL, NULL, iv, 0)
           && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, (int)tag_len, (void *)tag)
           && (aad_len == 0 || EVP_CipherUpdate(c, NULL, &n, aad, (int)aad_len))
           && (len == 0 || EVP_CipherUpdate(c, out, &n, in, (int)len))
           && EVP_CipherFinal_ex(c, out + (len > 0 ? n : 0), &f);
  if (!ok) {
    if (len > 0) {
      OPENSSL_cleanse(out, len);
    }
    return -1;
  }
  return (int)len;
}

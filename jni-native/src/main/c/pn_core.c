#include "pn_core.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

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

EVP_MAC_CTX *pn_hmac_new(int alg, const unsigned char *key, size_t key_len) {
  const char *md = pn_digest_name(alg);
  if (md == NULL) {
    return NULL;
  }
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
  EVP_MAC_CTX *ctx = mac == NULL ? NULL : EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac); /* the context holds its own reference */
  OSSL_PARAM params[2];
  params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md, 0);
  params[1] = OSSL_PARAM_construct_end();
  if (ctx == NULL || !EVP_MAC_init(ctx, key, key_len, params)) {
    EVP_MAC_CTX_free(ctx);
    return NULL;
  }
  return ctx;
}

int pn_hmac_update(EVP_MAC_CTX *ctx, const unsigned char *in, size_t len) {
  return len == 0 || EVP_MAC_update(ctx, in, len);
}

size_t pn_hmac_final(EVP_MAC_CTX *ctx, unsigned char *out) {
  size_t n = 0;
  if (!EVP_MAC_final(ctx, out, &n, EVP_MAX_MD_SIZE) || !EVP_MAC_init(ctx, NULL, 0, NULL)) {
    return 0;
  }
  return n;
}

int pn_hmac_reset(EVP_MAC_CTX *ctx) {
  return EVP_MAC_init(ctx, NULL, 0, NULL);
}

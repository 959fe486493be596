/*
 * Runs the native provider's crypto core (pn_core.c) without a JVM, so that valgrind or
 * AddressSanitizer see only our code and OpenSSL: every digest, keys shorter and longer than
 * the block, empty and long inputs, reset, copy, and the RFC 4231 test case 2 answer.
 * Exit status 0 when every check passed.
 */
#include <stdio.h>
#include <string.h>

#include "pn_core.h"

static int failures = 0;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s\n", what);
    failures++;
  }
}

int main(void) {
  /* RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?", HMAC-SHA-256. */
  static const unsigned char want[32] = {
      0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
      0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43};
  unsigned char out[PN_MAX_MD];
  const char *data = "what do ya want for nothing?";
  pn_hmac *c = pn_hmac_new(3, (const unsigned char *)"Jefe", 4);
  check(c != NULL, "new");
  pn_hmac_update(c, (const unsigned char *)data, strlen(data));
  check(pn_hmac_final(c, out) == 32 && memcmp(out, want, 32) == 0, "RFC 4231 case 2");
  /* the context starts over after final: the same answer again */
  pn_hmac_update(c, (const unsigned char *)data, strlen(data));
  check(pn_hmac_final(c, out) == 32 && memcmp(out, want, 32) == 0, "RFC 4231 case 2 again");
  /* reset discards what was fed */
  pn_hmac_update(c, (const unsigned char *)"junk", 4);
  pn_hmac_reset(c);
  pn_hmac_update(c, (const unsigned char *)data, strlen(data));
  check(pn_hmac_final(c, out) == 32 && memcmp(out, want, 32) == 0, "after reset answer");
  /* a copy goes on independently */
  pn_hmac_update(c, (const unsigned char *)data, 10);
  pn_hmac *d = pn_hmac_dup(c);
  check(d != NULL, "dup");
  pn_hmac_update(d, (const unsigned char *)data + 10, strlen(data) - 10);
  check(pn_hmac_final(d, out) == 32 && memcmp(out, want, 32) == 0, "dup answer");
  pn_hmac_free(d);
  pn_hmac_free(c);

  static unsigned char big[70000];
  static unsigned char key[300];
  for (size_t i = 0; i < sizeof(big); i++) {
    big[i] = (unsigned char)(i * 31 + 7);
  }
  for (size_t i = 0; i < sizeof(key); i++) {
    key[i] = (unsigned char)(i * 17 + 3);
  }
  static const size_t lengths[] = {0, 1, 63, 64, 65, 1000, 65536, 70000};
  static const size_t key_lengths[] = {1, 16, 64, 65, 128, 129, 300};
  for (int alg = 1; alg <= 5; alg++) {
    for (size_t k = 0; k < sizeof(key_lengths) / sizeof(key_lengths[0]); k++) {
      pn_hmac *h = pn_hmac_new(alg, key, key_lengths[k]);
      check(h != NULL, "new per digest");
      if (h == NULL) {
        continue;
      }
      for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
        pn_hmac_update(h, big, lengths[l]);
        check(pn_hmac_final(h, out) == pn_hmac_size(h), "final big");
      }
      pn_hmac_free(h);
    }
  }
  check(pn_hmac_new(9, key, 16) == NULL, "unknown digest refused");
  /* FIPS 180-4: SHA-256("abc") */
  static const unsigned char abc256[32] = {
      0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
      0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  pn_digest *md = pn_digest_new(3);
  check(md != NULL, "digest new");
  pn_digest_update(md, (const unsigned char *)"abc", 3);
  pn_digest *md2 = pn_digest_dup(md);
  check(pn_digest_final(md, out) == 32 && memcmp(out, abc256, 32) == 0, "SHA-256 abc");
  check(pn_digest_final(md2, out) == 32 && memcmp(out, abc256, 32) == 0, "SHA-256 abc, copy");
  pn_digest_update(md, big, sizeof(big));
  pn_digest_reset(md);
  pn_digest_update(md, (const unsigned char *)"abc", 3);
  check(pn_digest_final(md, out) == 32 && memcmp(out, abc256, 32) == 0, "SHA-256 after reset");
  pn_digest_free(md);
  pn_digest_free(md2);
  pn_digest *m5 = pn_digest_new(5);
  check(m5 != NULL && pn_digest_size(m5) == 64, "SHA-512 new");
  pn_digest_update(m5, big, sizeof(big));
  check(pn_digest_final(m5, out) == 64, "SHA-512 final");
  pn_digest_free(m5);
  check(pn_digest_new(1) == NULL, "MD5 is no digest here");
  /* AES-GCM round trip with additional data; a flipped bit fails the tag. */
  unsigned char iv[12] = {0};
  unsigned char ct[1100];
  unsigned char pt[1100];
  unsigned char tag[16];
  pn_cipher *e = pn_cipher_new(1, 1, key, 32, iv, sizeof(iv));
  check(e != NULL, "GCM encrypt new");
  check(pn_cipher_aad(e, key, 20), "GCM aad");
  int n = pn_cipher_update(e, big, 1000, ct);
  int f = pn_cipher_final(e, ct + (n > 0 ? n : 0));
  check(n >= 0 && f >= 0 && n + f == 1000, "GCM encrypt");
  check(pn_cipher_get_tag(e, tag, 16), "GCM tag");
  pn_cipher_free(e);
  for (int flip = 0; flip < 2; flip++) {
    if (flip) {
      ct[7] ^= 1;
    }
    pn_cipher *d = pn_cipher_new(1, 0, key, 32, iv, sizeof(iv));
    check(d != NULL && pn_cipher_aad(d, key, 20) && pn_cipher_set_tag(d, tag, 16), "GCM decrypt new");
    n = pn_cipher_update(d, ct, 1000, pt);
    f = pn_cipher_final(d, pt + (n > 0 ? n : 0));
    check(flip ? f < 0 : (f >= 0 && memcmp(pt, big, 1000) == 0), flip ? "GCM tamper" : "GCM decrypt");
    pn_cipher_free(d);
  }
  /* GCM in one call, in place: the same bytes as above; a forged tag zeroes the output. */
  pn_cipher *g = pn_cipher_new(1, 1, key, 32, iv, sizeof(iv));
  check(g != NULL, "GCM one-call new");
  unsigned char buf[1100];
  memcpy(buf, big, 1000);
  n = pn_gcm_seal(g, iv, key, 20, buf, 1000, buf, 16);
  ct[7] ^= 1; /* undo the flip above */
  check(n == 1016 && memcmp(buf, ct, 1000) == 0 && memcmp(buf + 1000, tag, 16) == 0,
        "GCM one-call seal matches the streamed one");
  n = pn_gcm_open(g, iv, key, 20, buf, 1000, buf + 1000, 16, buf);
  check(n == 1000 && memcmp(buf, big, 1000) == 0, "GCM one-call open");
  memcpy(buf, ct, 1000);
  buf[1015] ^= 1;
  n = pn_gcm_open(g, iv, key, 20, buf, 1000, buf + 1000, 16, pt);
  int zero = 1;
  for (int i = 0; i < 1000; i++) {
    zero &= pt[i] == 0;
  }
  check(n == -1 && zero, "GCM one-call forged tag: refused, nothing released");
  check(pn_gcm_seal(g, iv, NULL, 0, buf, 0, buf, 17) == -1, "a 17-byte tag refused");
  pn_cipher_free(g);
  /* AES-CBC with padding, AES-CTR, and refusals */
  for (int mode = 2; mode <= 3; mode++) {
    unsigned char iv16[16] = {1};
    pn_cipher *c2 = pn_cipher_new(mode, 1, key, 16, iv16, 16);
    n = pn_cipher_update(c2, big, 1000, ct);
    f = pn_cipher_final(c2, ct + n);
    pn_cipher_free(c2);
    pn_cipher *d2 = pn_cipher_new(mode, 0, key, 16, iv16, 16);
    int m = pn_cipher_update(d2, ct, (size_t)(n + f), pt);
    int g = pn_cipher_final(d2, pt + m);
    check(m + g == 1000 && memcmp(pt, big, 1000) == 0, "CTR/CBC round trip");
    pn_cipher_free(d2);
  }
  check(pn_cipher_new(3, 1, key, 20, iv, 16) == NULL, "a 20-byte AES key refused");
  check(pn_cipher_new(3, 1, key, 16, iv, 12) == NULL, "a 12-byte CBC IV refused");
  if (failures == 0) {
    printf("harness: all checks passed\n");
  }
  return failures == 0 ? 0 : 1;
}

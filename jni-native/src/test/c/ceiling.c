/*
 * The native ceiling for HmacProviderBenchmark: the provider's own core (pn_core.c: OpenSSL's
 * digests from precomputed inner and outer states) in a C loop, no JVM. Prints ns per MAC.
 *
 *   gcc -O2 -Ijni-native/src/main/c jni-native/src/test/c/ceiling.c jni-native/src/main/c/pn_core.c -lcrypto -o ceiling && ./ceiling
 */
#include <stdio.h>
#include <time.h>

#include "pn_core.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(void) {
  static unsigned char packet[16384];
  unsigned char key[32];
  unsigned char out[PN_MAX_MD];
  for (size_t i = 0; i < sizeof(packet); i++) {
    packet[i] = (unsigned char)i;
  }
  for (size_t i = 0; i < sizeof(key); i++) {
    key[i] = (unsigned char)(i + 1);
  }
  static const int algs[] = {3, 2, 1};
  static const char *names[] = {"HmacSHA256", "HmacSHA1", "HmacMD5"};
  static const size_t sizes[] = {64, 256, 1024, 2048, 16384};
  printf("%-12s %6s %10s\n", "algorithm", "bytes", "ns/MAC");
  for (int a = 0; a < 3; a++) {
    pn_hmac *c = pn_hmac_new(algs[a], key, sizeof(key));
    if (c == NULL) {
      return 1;
    }
    for (size_t s = 0; s < 5; s++) {
      long n = (long)(2e8 / (double)(sizes[s] + 64));
      for (long i = 0; i < n / 10; i++) { /* warm-up */
        pn_hmac_update(c, packet, sizes[s]);
        pn_hmac_final(c, out);
      }
      double best = 1e30;
      for (int rep = 0; rep < 5; rep++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
          pn_hmac_update(c, packet, sizes[s]);
          pn_hmac_final(c, out);
        }
        double per = (now_ns() - t0) / (double)n;
        best = per < best ? per : best;
      }
      printf("%-12s %6zu %10.0f\n", names[a], sizes[s], best);
    }
    pn_hmac_free(c);
  }
  /* AES-128-GCM: a new IV per packet on a keyed context (what a C sender would do). */
  unsigned char iv[12] = {0};
  static unsigned char ct[16384 + 32];
  pn_cipher *g = pn_cipher_new(1, 1, key, 16, iv, sizeof(iv));
  if (g == NULL) {
    return 1;
  }
  for (size_t s = 0; s < 5; s++) {
    long n = (long)(2e8 / (double)(sizes[s] + 64));
    double best = 1e30;
    for (int rep = 0; rep < 6; rep++) {
      double t0 = now_ns();
      for (long i = 0; i < n; i++) {
        iv[11] = (unsigned char)i;
        iv[10] = (unsigned char)(i >> 8);
        pn_cipher_restart(g, 1, iv);
        int w = pn_cipher_update(g, packet, sizes[s], ct);
        w += pn_cipher_final(g, ct + w);
        pn_cipher_get_tag(g, ct + w, 16);
      }
      double per = (now_ns() - t0) / (double)n;
      best = rep > 0 && per < best ? per : best; /* the first round warms up */
    }
    printf("%-12s %6zu %10.0f\n", "AES-128-GCM", sizes[s], best);
  }
  pn_cipher_free(g);
  return 0;
}

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
  return 0;
}

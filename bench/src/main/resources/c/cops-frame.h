/*
 * Framing by the COPS common header (RFC 2748 section 2.1), shared by cops-responder.c and
 * cops-load.c: the 32-bit message length at bytes 4-7 counts the header itself.
 */
#ifndef COPS_FRAME_H
#define COPS_FRAME_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of the message at in[0..avail): its length when all of it is there, 0 while more is
 * needed, -1 for a length below 8 or above max (the connection is to be closed).
 */
static long cops_frame(const unsigned char *in, size_t avail, size_t max) {
  if (avail < 8) {
    return 0;
  }
  uint32_t len = (uint32_t)in[4] << 24 | (uint32_t)in[5] << 16 | (uint32_t)in[6] << 8 | in[7];
  if (len < 8 || len > max) {
    return -1;
  }
  return avail < len ? 0 : (long)len;
}

#endif

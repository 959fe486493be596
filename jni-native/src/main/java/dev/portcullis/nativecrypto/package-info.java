/**
 * PortcullisNative, a JCA provider over OpenSSL libcrypto through JNI: HMACs, SHA-2 digests, AES-
 * GCM/CTR/CBC. Reference: {@code docs/native-provider.md}.
 */
package dev.portcullis.nativecrypto;

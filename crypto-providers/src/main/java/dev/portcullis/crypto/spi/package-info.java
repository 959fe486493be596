/**
 * How the registry finds providers: factories, found by name, and the one-shot MAC interface a
 * provider may offer.
 */
package dev.portcullis.crypto.spi;

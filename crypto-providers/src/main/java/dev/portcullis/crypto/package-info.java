/**
 * The crypto provider registry: which JCE provider serves each algorithm, admitted after known-
 * answer tests, switched at run time; pooled, pre-warmed MAC, cipher and digest handles. Reference:
 * {@code docs/crypto-providers.md}.
 */
package dev.portcullis.crypto;

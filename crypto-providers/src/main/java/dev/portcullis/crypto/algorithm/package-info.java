/**
 * The algorithms the registry knows, by the names the JCA gives them: the one vocabulary the
 * registry, its configuration and its known-answer tests share (so none of them depends on another
 * to name an algorithm).
 */
package dev.portcullis.crypto.algorithm;

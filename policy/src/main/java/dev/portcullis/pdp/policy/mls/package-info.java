/**
 * The multilevel-security engine: Bell-LaPadula and Biba over clearances, session levels and
 * categories.
 */
package dev.portcullis.pdp.policy.mls;

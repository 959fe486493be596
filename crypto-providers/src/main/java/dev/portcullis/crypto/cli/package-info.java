/** The {@code portcullis-crypto} command line: status, self-tests, first-use measurements. */
package dev.portcullis.crypto.cli;

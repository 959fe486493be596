/** The {@code pdp-server} command line: serve, issue-credential, verify-audit. */
package dev.portcullis.pdp.cli;

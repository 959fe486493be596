/** The {@code active-router} command line: router, auth-server, code-server, source and demo. */
package dev.portcullis.active.cli;

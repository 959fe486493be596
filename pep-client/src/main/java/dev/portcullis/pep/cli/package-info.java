/** The {@code pep-client} command line: request, simulate, enrol. */
package dev.portcullis.pep.cli;

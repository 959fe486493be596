/** The session simulator: timed COPS sessions (OPN, CAT, REQ, DEC, CC) and their report. */
package dev.portcullis.pep.sim;

/** COPS-PR sub-objects (RFC 3084 section 4) and the BER they carry. */
package dev.portcullis.cops.pr;

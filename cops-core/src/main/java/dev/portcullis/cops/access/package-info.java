/**
 * The Portcullis access client type (0xC0A5) and enrolment (0xC0A7): requests, decisions and their
 * TLV encoding ({@code docs/cops-wire.md}).
 */
package dev.portcullis.cops.access;

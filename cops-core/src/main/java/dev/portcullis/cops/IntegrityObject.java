package dev.portcullis.cops;

/** The Integrity object in either of its forms; always the last object of a message. */
public sealed interface IntegrityObject extends CopsObject permits Integrity, IntegrityTls {}

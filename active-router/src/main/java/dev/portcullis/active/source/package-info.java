/**
 * The Source (asks the Authorization Server for a session and seals packets) and a sink that
 * receives them.
 */
package dev.portcullis.active.source;

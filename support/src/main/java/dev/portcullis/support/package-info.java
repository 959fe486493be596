/**
 * The bottom floor every module may use: XML config reading with file:line errors and {@link
 * ConfigException}, owned files, range-checked numbers, summarised logging, the Netty transport and
 * process settings.
 */
package dev.portcullis.support;

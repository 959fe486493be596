/**
 * The operators' control interface on the PDP's operator endpoint ({@link
 * dev.portcullis.pdp.control.ControlApi}, {@code /control}; docs/operate.md): what an operator may
 * see and do, reached through {@link dev.portcullis.pdp.control.ControlApi.Pdp}, the narrow handle
 * the server gives it. Over {@code pdp.connection}.
 */
package dev.portcullis.pdp.control;

/**
 * The Active Router: the UDP event loop that verifies each packet, parks packets whose code secret
 * is on its way, runs the packet's code and forwards it.
 */
package dev.portcullis.active.router;

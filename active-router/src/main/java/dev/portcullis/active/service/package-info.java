/**
 * The service programming interface: what a code module implements and what it sees of a packet.
 */
package dev.portcullis.active.service;

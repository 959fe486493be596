/**
 * The state a fleet of Portcullis servers shares (docs/fleet.md): the {@link
 * dev.portcullis.state.StateStore} SPI and its two stores, embedded (one host, nothing to start)
 * and ZooKeeper (through Apache Curator).
 */
package dev.portcullis.state;

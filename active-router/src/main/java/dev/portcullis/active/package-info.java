/**
 * The ROSA active-network architecture (B. Alarcos, E. de la Hoz, M. Sedano, M. Calderón,
 * <i>Performance Analysis of a Security Architecture for Active Networks in Java</i>): {@code
 * Domain} starts the parts of one domain from its configuration, {@code RosaDemo} runs the sample
 * domain on loopback. Reference: {@code docs/active-router.md}.
 */
package dev.portcullis.active;

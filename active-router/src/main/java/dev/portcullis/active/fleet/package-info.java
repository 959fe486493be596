/**
 * What replicas of the Authorization Server and the Code Server share through the fleet's state
 * store (docs/fleet.md): each code's current Kci and every epoch's Kci, wrapped with a
 * key-encryption key, and the flows granted once per epoch.
 */
package dev.portcullis.active.fleet;

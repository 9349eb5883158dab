/** What the relay is doing right now (active or standby, what it published), over HTTP and in actuator health. */
package dev.ledgerlab.relay.status;

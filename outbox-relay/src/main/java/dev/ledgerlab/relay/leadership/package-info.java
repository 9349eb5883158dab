/** One active relay at a time: a PostgreSQL advisory lock decides, and a standby takes over when it is released. */
package dev.ledgerlab.relay.leadership;

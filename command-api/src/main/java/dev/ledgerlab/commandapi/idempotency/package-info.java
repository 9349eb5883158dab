/** Idempotency-Key: a retried command returns its first response and writes nothing more. */
package dev.ledgerlab.commandapi.idempotency;

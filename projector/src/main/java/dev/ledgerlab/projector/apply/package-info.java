/** Applying the log: one database transaction per polled batch, version-checked per account, offsets stored alongside. */
package dev.ledgerlab.projector.apply;

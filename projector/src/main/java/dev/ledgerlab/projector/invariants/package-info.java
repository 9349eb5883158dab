/** The invariant checker: the projection must equal the fold of the event store, account by account. */
package dev.ledgerlab.projector.invariants;

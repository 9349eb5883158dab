/** Operator endpoints: where the projection stands, and the accounts it parked. */
package dev.ledgerlab.projector.operate;

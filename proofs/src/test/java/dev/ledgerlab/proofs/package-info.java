/** Proofs of the pipeline's guarantees, each through real processes, each ending with the invariant checker. */
package dev.ledgerlab.proofs;

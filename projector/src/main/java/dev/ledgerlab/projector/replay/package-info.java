/** Replaying the projection from offset zero: in place, or into shadow tables swapped in while reads go on. */
package dev.ledgerlab.projector.replay;

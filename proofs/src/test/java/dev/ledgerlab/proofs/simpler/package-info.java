/** The simpler designs the lab does not use, built only to be shown failing: test sources, never a service's path. */
package dev.ledgerlab.proofs.simpler;

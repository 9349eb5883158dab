/** {@code ./ledger-lab bench}: the lab's speed measured against baselines run on the same machine, in the same run. */
package dev.ledgerlab.bench;

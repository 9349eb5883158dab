/** The pipeline page at {@code /}: what each stage holds and how far it is behind, and one event's journey. */
package dev.ledgerlab.projector.watch;

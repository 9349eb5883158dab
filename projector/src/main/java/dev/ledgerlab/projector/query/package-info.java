/** Reads of the projection, with read-your-writes waits on a version. */
package dev.ledgerlab.projector.query;

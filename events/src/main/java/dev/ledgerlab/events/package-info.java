/** The event contract between the command side that writes events and the projector that reads them. */
package dev.ledgerlab.events;

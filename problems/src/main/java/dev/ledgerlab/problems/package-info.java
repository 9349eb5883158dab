/** The HTTP error contract of both services: one catalogue of problem types, and the responses that carry them. */
package dev.ledgerlab.problems;

/**
 * The integration-test infrastructure, chosen in one place: Testcontainers where a Docker engine runs, the embedded stack elsewhere.
 */
package dev.ledgerlab.testkit;

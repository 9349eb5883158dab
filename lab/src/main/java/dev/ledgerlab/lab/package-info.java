/** The embedded default: real PostgreSQL and Kafka started in this JVM with the services, from one command. */
package dev.ledgerlab.lab;

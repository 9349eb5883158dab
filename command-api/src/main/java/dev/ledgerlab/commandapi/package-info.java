/** The write side: REST commands that append events and account state to PostgreSQL in one transaction. */
package dev.ledgerlab.commandapi;

/** The database every service shares: its migrations and settings (resources), and how its failures read. */
package dev.ledgerlab.db;

/** Accounts: the pure decision of what a command means for an account, and its transactional execution. */
package dev.ledgerlab.commandapi.account;

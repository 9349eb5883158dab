/** HTTP concerns shared by every endpoint: strict request bodies, limits, and RFC 9457 problem responses. */
package dev.ledgerlab.commandapi.web;

/** RFC 9457 problem responses of the projector's endpoints. */
package dev.ledgerlab.projector.web;

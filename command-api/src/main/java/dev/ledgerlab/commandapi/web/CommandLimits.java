package dev.ledgerlab.commandapi.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Documented limits on what a command may ask.
 *
 * @param maxAmount largest amount of one deposit or withdrawal, in minor units (default 10^12, ten billion in
 *     major units); larger is a 400, not a silent cap
 * @param maxBodyBytes largest request body accepted (default 4096); larger is a 413, read no further
 */
@ConfigurationProperties("ledger.commands")
public record CommandLimits(@DefaultValue("1000000000000") long maxAmount, @DefaultValue("4096") int maxBodyBytes) {
}

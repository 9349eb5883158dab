package dev.ledgerlab.projector.watch;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param commandApiUrl where the page's browser sends the commands of its "Try it" form (the command API allows
 *     such cross-origin calls from {@code localhost} pages: {@code ledger.lab.cors.allowed-origin-patterns})
 * @param sampleInterval the least time between two readings of the pipeline; a reading is taken when the page asks
 *     and the last one is older, so nothing is read while no one watches
 * @param history how long readings are kept for the charts
 * @param labUrl where the page's browser reads the lab's processes and sends its faults, when the lab runs its
 *     services as processes ({@code ./ledger-lab --processes}: its port, {@code GET /processes} and
 *     {@code POST /break/...}); empty otherwise, and the page shows no faults
 */
@ConfigurationProperties("projector.page")
public record PageProperties(
        @DefaultValue("http://localhost:8080") String commandApiUrl,
        @DefaultValue("1s") Duration sampleInterval,
        @DefaultValue("5m") Duration history,
        @DefaultValue("") String labUrl) {
}

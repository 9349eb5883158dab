package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.EventReader;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How this projector reads the log, live, in replays and rebuilds, on release and in the invariant check: every
 * schema version the events module knows, upcast to the current one. One bean, so that a test can stand in a reader
 * from before a version existed.
 */
@Configuration(proxyBeanMethods = false)
class EventReaderConfiguration {

    @Bean
    EventReader eventReader() {
        return EventReader.current();
    }
}

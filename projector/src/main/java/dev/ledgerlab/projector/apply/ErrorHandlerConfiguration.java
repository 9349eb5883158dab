package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.events.Replication;
import dev.ledgerlab.projector.ProjectorProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Spring Kafka's error handler does the retrying and the dead-lettering, with one back-off per kind of failure:
 * <ul>
 *   <li>a record that cannot be decoded is not retried: it goes to the dead-letter topic (origin topic, partition,
 *       offset and exception in its headers) and the stored offset moves past it;</li>
 *   <li>an event that does not follow its account's version ({@link UnapplicableEventException}: a gap, a conflict) is retried
 *       {@code projector.gap-retries} times, then its account is parked;</li>
 *   <li>every other failure (PostgreSQL unreachable or restarting, a timeout, a serialization abort, the broker away)
 *       says nothing about the record: the batch is tried again after a back-off that grows to
 *       {@code projector.retry-max-interval} and never runs out. The listener keeps its partitions meanwhile (the
 *       back-off waits on the consumer thread, well within {@code max.poll.interval.ms}).</li>
 * </ul>
 * Both listeners report every failure as a {@code BatchListenerFailedException}, so the whole-batch fallback (which
 * would hand every record of a batch to the recoverer once its retries ran out) is never used. A rebuild's group
 * parks in its shadow tables and does not dead-letter again: the live group already did.
 */
@Configuration(proxyBeanMethods = false)
class ErrorHandlerConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ErrorHandlerConfiguration.class);

    @Bean
    NewTopic deadLetterTopic(ProjectorProperties properties) {
        var replication = Replication.of(properties.deadLetterReplicationFactor());
        return TopicBuilder.name(properties.deadLetterTopic())
                .partitions(1)
                .replicas(replication.replicas())
                .configs(replication.topicConfigs())
                .config("retention.ms", "-1")
                .build();
    }

    @Bean
    DefaultErrorHandler projectionErrorHandler(KafkaOperations<Object, Object> kafka, ProjectionWriter writer,
            ProjectorProperties properties, MeterRegistry meters) {
        var deadLettered = Counter.builder("ledger.projection.dead.letters")
                .description("undecodable records the live group published to the dead-letter topic and skipped")
                .register(meters);
        var deadLetters = new DeadLetterPublishingRecoverer(kafka,
                (record, e) -> new TopicPartition(properties.deadLetterTopic(), -1));
        ConsumerAwareRecordRecoverer recoverer = (record, consumer, exception) -> {
            @SuppressWarnings("unchecked")
            var stringRecord = (ConsumerRecord<String, String>) record;
            var target = consumer != null
                    && properties.replay().rebuildGroupId().equals(consumer.groupMetadata().groupId())
                    ? ProjectionTables.REBUILD : ProjectionTables.LIVE;
            var unapplicable = cause(exception, UnapplicableEventException.class);
            if (unapplicable != null) {
                log.warn("parking account {} in {} at partition {} offset {}: {}", unapplicable.accountId(),
                        target.schema(), record.partition(), record.offset(), unapplicable.getMessage());
                writer.park(target, stringRecord, unapplicable);
                return;
            }
            if (cause(exception, MalformedEventException.class) == null) {
                // Unreachable while that failure's back-off never runs out; kept so that no failure of the database,
                // the broker or this code is ever mistaken for a bad record. Throwing makes the handler seek back.
                throw new IllegalStateException("refusing to dead-letter or skip partition " + record.partition()
                        + " offset " + record.offset() + ": only undecodable records are dead-lettered, and this one"
                        + " failed with " + exception, exception);
            }
            if (target == ProjectionTables.LIVE) {
                log.warn("dead-lettering partition {} offset {}: {}", record.partition(), record.offset(),
                        exception.getMessage());
                deadLetters.accept(record, exception);
                deadLettered.increment();
            } else {
                log.warn("rebuild skips undecodable partition {} offset {} (dead-lettered by the live group): {}",
                        record.partition(), record.offset(), exception.getMessage());
            }
            writer.skipDeadLettered(target, stringRecord);
        };
        var handler = new DefaultErrorHandler(recoverer, untilItWorks(properties));
        BackOff gaps = new FixedBackOff(properties.gapRetryInterval().toMillis(), properties.gapRetries());
        // null: the handler's own back-off above, for everything that is neither unapplicable nor undecodable.
        handler.setBackOffFunction((record, e) -> cause(e, UnapplicableEventException.class) != null ? gaps : null);
        handler.addNotRetryableExceptions(MalformedEventException.class);
        // Each retry is logged once by the listener (PositionedListener.retry); the handler's stack trace adds nothing.
        handler.setLogLevel(KafkaException.Level.DEBUG);
        return handler;
    }

    /** Doubles from {@code retry-interval} to {@code retry-max-interval}, with no limit on attempts or elapsed time. */
    static BackOff untilItWorks(ProjectorProperties properties) {
        var backOff = new ExponentialBackOff(properties.retryInterval().toMillis(), 2.0);
        backOff.setMaxInterval(properties.retryMaxInterval().toMillis());
        backOff.setMaxElapsedTime(Long.MAX_VALUE);
        backOff.setMaxAttempts(Long.MAX_VALUE);
        return backOff;
    }

    static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        for (var t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}

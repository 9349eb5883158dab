package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.ReplayProperties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Spring Kafka's error handler does the retrying and the dead-lettering; what is ours is the recovery: an
 * undecodable record goes to the dead-letter topic (origin topic, partition, offset and exception in its headers)
 * and the stored offset moves past it; an event that stays unapplicable parks its account. Either way the
 * partition keeps flowing. A rebuild's group parks in its shadow tables and does not dead-letter again: the live
 * group already did.
 */
@Configuration(proxyBeanMethods = false)
class ErrorHandling {

    private static final Logger log = LoggerFactory.getLogger(ErrorHandling.class);

    @Bean
    NewTopic deadLetterTopic(ProjectorProperties properties) {
        return TopicBuilder.name(properties.deadLetterTopic())
                .partitions(1)
                .replicas(properties.deadLetterReplicationFactor())
                .config("retention.ms", "-1")
                .build();
    }

    @Bean
    DefaultErrorHandler projectionErrorHandler(KafkaOperations<Object, Object> kafka, ProjectionWriter writer,
            ProjectorProperties properties, ReplayProperties replay) {
        var deadLetters = new DeadLetterPublishingRecoverer(kafka,
                (record, e) -> new TopicPartition(properties.deadLetterTopic(), -1));
        ConsumerAwareRecordRecoverer recoverer = (record, consumer, exception) -> {
            @SuppressWarnings("unchecked")
            var stringRecord = (org.apache.kafka.clients.consumer.ConsumerRecord<String, String>) record;
            var target = consumer != null && replay.rebuildGroupId().equals(consumer.groupMetadata().groupId())
                    ? Target.REBUILD : Target.LIVE;
            var unapplicable = cause(exception, Unapplicable.class);
            if (unapplicable != null) {
                log.warn("parking account {} in {} at partition {} offset {}: {}", unapplicable.accountId(),
                        target.schema(), record.partition(), record.offset(), unapplicable.getMessage());
                writer.park(target, stringRecord, unapplicable);
                return;
            }
            if (target == Target.LIVE) {
                log.warn("dead-lettering partition {} offset {}: {}", record.partition(), record.offset(),
                        exception.getMessage());
                deadLetters.accept(record, exception);
            } else {
                log.warn("rebuild skips undecodable partition {} offset {} (dead-lettered by the live group): {}",
                        record.partition(), record.offset(), exception.getMessage());
            }
            writer.skipDeadLettered(target, stringRecord);
        };
        var handler = new DefaultErrorHandler(recoverer,
                new FixedBackOff(properties.gapRetryInterval().toMillis(), properties.gapRetries()));
        handler.addNotRetryableExceptions(MalformedEventException.class);
        return handler;
    }

    private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        for (var t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}

package dev.ledgerlab.projector.operate;

import dev.ledgerlab.projector.ProjectorProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/** The log end offset of each partition of a topic (the projector's, unless named), asked of the broker: no group. */
@Component
public class LogEndOffsets implements DisposableBean {

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(5);

    private final ProjectorProperties properties;
    private final Admin admin;

    public LogEndOffsets(ProjectorProperties properties, KafkaAdmin kafkaAdmin) {
        this.properties = properties;
        this.admin = Admin.create(kafkaAdmin.getConfigurationProperties());
    }

    public Map<Integer, Long> current() throws ExecutionException, InterruptedException, TimeoutException {
        return of(properties.topic());
    }

    /**
     * The log end offset of every partition of a topic. A topic that does not exist fails (an
     * {@link ExecutionException} caused by {@code UnknownTopicOrPartitionException}): a replay must never take a
     * missing topic for an empty log.
     */
    public Map<Integer, Long> of(String topic) throws ExecutionException, InterruptedException, TimeoutException {
        var description = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic);
        var request = description.partitions().stream()
                .collect(Collectors.toMap(p -> new TopicPartition(topic, p.partition()),
                        p -> OffsetSpec.latest()));
        return admin.listOffsets(request).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).entrySet()
                .stream().collect(Collectors.toMap(e -> e.getKey().partition(), e -> e.getValue().offset()));
    }

    @Override
    public void destroy() {
        admin.close(ADMIN_TIMEOUT);
    }
}

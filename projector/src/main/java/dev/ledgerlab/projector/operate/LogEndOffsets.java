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

/** The log end offset of every partition of the projector's topic, asked of the broker (no consumer group needed). */
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
        var description = admin.describeTopics(List.of(properties.topic())).allTopicNames()
                .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(properties.topic());
        var request = description.partitions().stream()
                .collect(Collectors.toMap(p -> new TopicPartition(properties.topic(), p.partition()),
                        p -> OffsetSpec.latest()));
        return admin.listOffsets(request).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).entrySet()
                .stream().collect(Collectors.toMap(e -> e.getKey().partition(), e -> e.getValue().offset()));
    }

    @Override
    public void destroy() {
        admin.close(ADMIN_TIMEOUT);
    }
}

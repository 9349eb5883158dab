package dev.ledgerlab.proofs.support;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;

/** Who leads each partition of a pipeline's topic, and which replicas are in sync, as Kafka's Admin client says. */
public final class TopicReplicas {

    /**
     * One partition: its leader (-1 while it has none), its replicas and those of them in sync.
     */
    public record Partition(int leader, List<Integer> replicas, List<Integer> inSync) {
    }

    private TopicReplicas() {
    }

    public static Map<Integer, Partition> of(Pipeline pipeline) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().bootstrapServers(), AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000))) {
            var partitions = new TreeMap<Integer, Partition>();
            admin.describeTopics(List.of(pipeline.topic())).allTopicNames().get(15, TimeUnit.SECONDS)
                    .get(pipeline.topic()).partitions().forEach(info -> partitions.put(info.partition(),
                            new Partition(info.leader() == null ? -1 : info.leader().id(),
                                    info.replicas().stream().map(Node::id).sorted().toList(),
                                    info.isr().stream().map(Node::id).sorted().toList())));
            return partitions;
        }
    }

    /** The topic's own settings, those set on it and the brokers' defaults it takes. */
    public static Map<String, String> settings(Pipeline pipeline) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().bootstrapServers()))) {
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, pipeline.topic());
            var settings = new TreeMap<String, String>();
            admin.describeConfigs(List.of(resource)).all().get(15, TimeUnit.SECONDS).get(resource).entries()
                    .forEach(entry -> settings.put(entry.name(), entry.value()));
            return settings;
        }
    }

    /** The node that leads the most partitions (the lowest id among equals). */
    public static int busiestLeader(Map<Integer, Partition> partitions) {
        var counts = new TreeMap<Integer, Integer>();
        partitions.values().stream().filter(p -> p.leader() >= 0).forEach(p -> counts.merge(p.leader(), 1, Integer::sum));
        int busiest = -1;
        for (var entry : counts.entrySet()) {
            if (busiest < 0 || entry.getValue() > counts.get(busiest)) {
                busiest = entry.getKey();
            }
        }
        if (busiest < 0) {
            throw new IllegalStateException("no partition has a leader: " + partitions);
        }
        return busiest;
    }
}

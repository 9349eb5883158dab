package dev.ledgerlab.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReplicationTest {

    @Test
    void needsAMajorityOfTheCopiesInSync() {
        assertThat(Replication.of(1).minInSyncReplicas()).isEqualTo(1);
        assertThat(Replication.of(2).minInSyncReplicas()).isEqualTo(2);
        assertThat(Replication.of(3).minInSyncReplicas()).isEqualTo(2);
        assertThat(Replication.of(5).minInSyncReplicas()).isEqualTo(3);
    }

    @Test
    void givesTopicsTheirInSyncMinimumAndNeverAnUncleanLeader() {
        assertThat(Replication.of(3).topicConfigs()).containsOnly(
                org.assertj.core.api.Assertions.entry("min.insync.replicas", "2"),
                org.assertj.core.api.Assertions.entry("unclean.leader.election.enable", "false"));
    }

    @Test
    void replicatesTheBrokersOwnTopicsAsMuchAsThePipelines() {
        assertThat(Replication.of(3).brokerConfigs())
                .containsEntry("default.replication.factor", "3")
                .containsEntry("min.insync.replicas", "2")
                .containsEntry("unclean.leader.election.enable", "false")
                .containsEntry("offsets.topic.replication.factor", "3")
                .containsEntry("transaction.state.log.replication.factor", "3")
                .containsEntry("transaction.state.log.min.isr", "2");
        assertThat(Replication.SINGLE.brokerConfigs()).containsEntry("offsets.topic.replication.factor", "1")
                .containsEntry("transaction.state.log.min.isr", "1");
    }

    @Test
    void refusesATopicWithoutACopy() {
        assertThatThrownBy(() -> Replication.of(0)).isInstanceOf(IllegalArgumentException.class);
    }
}

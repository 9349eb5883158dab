package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

class EmbeddedStackTest {

    @Test
    void startsFromEmptyDirectoriesWhenAskedForAFreshStack() throws Exception {
        EmbeddedStack.Settings settings = EmbeddedStack.Settings.under(TestDirectories.newDirectory("fresh"))
                .withFreePorts()
                .withPostgresSetting("fsync", "off");
        try (EmbeddedStack stack = EmbeddedStack.start(settings)) {
            Sql.execute(stack.postgres().jdbcUrl(), "CREATE TABLE earlier (id int)");
            KafkaRoundTrip.createTopic(stack.kafka().bootstrapServers(), "earlier");
        }

        try (EmbeddedStack stack = EmbeddedStack.start(settings.withFresh(true))) {
            assertThatThrownBy(() -> Sql.query(stack.postgres().jdbcUrl(), "SELECT count(*) FROM earlier"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("relation \"earlier\" does not exist");
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", stack.kafka().bootstrapServers()))) {
                assertThat(admin.listTopics().names().get()).doesNotContain("earlier");
            }
        }
    }

    @Test
    void deletesOnlyDirectoriesThatNoLiveJvmHolds() throws Exception {
        Path abandoned = TestDirectories.newDirectory("abandoned");
        Files.createDirectories(abandoned.resolve("kafka"));
        Path held = TestDirectories.newDirectory("held");

        try (DirectoryLock liveJvm = DirectoryLock.acquire(held.resolve(".lock"))) {
            assertThat(EmbeddedStack.deleteIfAbandoned(abandoned)).isTrue();
            assertThat(EmbeddedStack.deleteIfAbandoned(held)).isFalse();
        }
        assertThat(abandoned).doesNotExist();
        assertThat(held.resolve(".lock")).exists();
    }
}

package dev.ledgerlab.projector;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The one integration-test base of this module: the real projector consuming a real Kafka topic into the real
 * PostgreSQL. Events are produced straight into the topic, which is how duplicates, gaps and poison get in.
 *
 * <p>A test class that clears or replaces the projection (a replay) gets a database, topic and consumer groups of
 * its own: it calls {@link #isolate} in a static {@code @BeforeAll} and sets {@value #DATABASE_PROPERTY},
 * {@code projector.topic} and the group ids with {@code @TestPropertySource}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.config.name=" + ProjectorApplication.CONFIG_NAME,
            "projector.read-your-writes-timeout=1500ms",
            "ledger.lab.operator.password=" + TestHttp.OPERATOR_PASSWORD})
public abstract class ProjectorIntegrationTest {

    protected static final String TOPIC = "accounts.events";
    /** The database of the test class: {@code ledger} unless it isolated itself. */
    public static final String DATABASE_PROPERTY = "ledgerlab.test.database";
    protected static final int PARTITIONS = 3;
    private static KafkaProducer<String, String> producer;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        var infra = TestInfrastructure.get();
        createTopic(infra.bootstrapServers());
        // Resolved when the context reads it, so that a test class's @TestPropertySource can name its database.
        registry.add("spring.datasource.url",
                () -> withDatabase(infra.jdbcUrl(), "${" + DATABASE_PROPERTY + ":ledger}"));
        registry.add("spring.datasource.username", infra::username);
        registry.add("spring.datasource.password", infra::password);
        registry.add("spring.kafka.bootstrap-servers", infra::bootstrapServers);
    }

    /**
     * Creates a database and a topic for one test class, before its context starts (the projector migrates the
     * database and subscribes to the topic as it starts).
     */
    protected static void isolate(String database, String topic) {
        var infra = TestInfrastructure.get();
        try (var connection = java.sql.DriverManager.getConnection(infra.jdbcUrl(), infra.username(),
                infra.password()); var statement = connection.createStatement()) {
            var exists = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'");
            if (!exists.next()) {
                statement.execute("CREATE DATABASE " + database);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot create database " + database, e);
        }
        createTopic(infra.bootstrapServers(), topic);
    }

    private static String withDatabase(String jdbcUrl, String database) {
        return jdbcUrl.replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + java.util.regex.Matcher.quoteReplacement(database));
    }

    private static void createTopic(String bootstrapServers) {
        createTopic(bootstrapServers, TOPIC);
    }

    /** In the pipeline the relay creates the topic; here the test stands in for it. */
    private static void createTopic(String bootstrapServers, String topic) {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException(e);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void closeProducer() {
        if (producer != null) {
            producer.close();
            producer = null;
        }
    }

    @Value("${local.server.port}")
    private int port;

    @Value("${projector.topic}")
    private String topic;

    @Autowired
    protected JdbcClient jdbc;

    protected static synchronized KafkaProducer<String, String> producer() {
        if (producer == null) {
            var props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestInfrastructure.get().bootstrapServers());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer = new KafkaProducer<>(props);
        }
        return producer;
    }

    /** Publishes an event as the relay would: key = account id, value = the envelope's JSON. */
    protected EventEnvelope publish(UUID account, long version, AccountEvent event) {
        var envelope = envelope(account, version, event);
        publish(envelope);
        return envelope;
    }

    protected static EventEnvelope envelope(UUID account, long version, AccountEvent event) {
        return new EventEnvelope(UUID.randomUUID(), account, version, Instant.now().truncatedTo(ChronoUnit.MICROS),
                event);
    }

    protected void publish(EventEnvelope envelope) {
        publishRaw(envelope.accountId().toString(), EventCodec.toJson(envelope));
    }

    /** Publishes many events without a round trip each, in order per account, and returns once all are acknowledged. */
    protected void publishAll(List<EventEnvelope> envelopes) {
        var sent = envelopes.stream().map(envelope -> producer().send(new ProducerRecord<>(topic,
                envelope.accountId().toString(), EventCodec.toJson(envelope)))).toList();
        producer().flush();
        try {
            for (var ack : sent) {
                ack.get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not publish", e);
        }
    }

    protected void publishRaw(String key, String value) {
        try {
            producer().send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not publish", e);
        }
    }

    protected UUID openedAccount() {
        var account = UUID.randomUUID();
        publish(account, 1, new AccountOpened("owner-" + account.toString().substring(0, 8)));
        return account;
    }

    /** The projector as its operator calls it (the credentials change nothing on the open calls). */
    protected TestHttp operator() {
        return TestHttp.at(port).asOperator();
    }

    protected int port() {
        return port;
    }

    /** The projector's queries, as its operator asks them. */
    protected ProjectorClient queries() {
        return ProjectorClient.over(operator());
    }

    protected TestHttp.Response get(String path) {
        return operator().get(path);
    }

    protected TestHttp.Response post(String path) {
        return operator().post(path);
    }

    protected TestHttp.Response delete(String path) {
        return operator().delete(path);
    }

    /** The projected (balance, version) of an account, or null when the projection does not know it. */
    protected long[] projected(UUID account) {
        return jdbc.sql("SELECT balance, version FROM projection.balances WHERE account_id = ?").param(account)
                .query((rs, row) -> new long[] {rs.getLong(1), rs.getLong(2)}).optional().orElse(null);
    }
}

package dev.ledgerlab.proofs.simpler;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.commandapi.account.AccountStore;
import dev.ledgerlab.commandapi.account.TraceContext;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The lab's command API with one part swapped: who sends an account's events to Kafka. Everything else (HTTP, the
 * decider, the row lock, the transaction, Idempotency-Key) is the real service. {@code simpler.publish} says how:
 * <ul>
 *   <li>{@code dual-write}: no outbox; the transaction updates {@code ledger.accounts} and commits, then the handler
 *       sends the events to Kafka itself;</li>
 *   <li>{@code kafka-first}: no outbox; the handler sends the events to Kafka (and waits for the acknowledgement)
 *       inside the transaction, then the transaction commits;</li>
 *   <li>{@code outbox}: the lab's own design, unchanged (events inserted into {@code ledger.events} in the
 *       transaction, the relay publishes them); only the halt below is added, so that it stops at the same point.</li>
 * </ul>
 * With {@code simpler.halt-at-command=N} the process halts ({@code Runtime.halt}: no shutdown hook, no answer to
 * the client) at its N-th deposit or withdrawal, between the two steps: after the commit (dual-write, outbox) or
 * after Kafka's acknowledgement (kafka-first). It prints a {@code FAULT:} line naming the event first.
 */
@Configuration(proxyBeanMethods = false)
public class SimplerCommandApi {

    public static void main(String[] args) {
        new SpringApplicationBuilder(CommandApiApplication.class, SimplerCommandApi.class)
                .properties("spring.config.name=" + CommandApiApplication.CONFIG_NAME).run(args);
    }

    /**
     * Replaces the lab's store in the command transaction ({@code AccountCommands} takes the primary one). Not final:
     * Spring proxies it, as it does every {@code @Repository}.
     */
    @Bean
    @Primary
    SimplerAccountStore simplerAccountStore(JdbcClient jdbc, @Value("${simpler.publish}") String publish,
            @Value("${simpler.halt-at-command:0}") int haltAtCommand, @Value("${relay.topic}") String topic,
            @Value("${spring.kafka.bootstrap-servers}") String bootstrapServers) {
        return new SimplerAccountStore(jdbc, publish, haltAtCommand, topic, bootstrapServers);
    }

    static class SimplerAccountStore extends AccountStore implements AutoCloseable {

        private final String publish;
        private final int haltAtCommand;
        private final String topic;
        private final KafkaProducer<String, String> producer;
        private final AtomicInteger commands = new AtomicInteger();

        SimplerAccountStore(JdbcClient jdbc, String publish, int haltAtCommand, String topic,
                String bootstrapServers) {
            super(jdbc);
            if (!List.of("dual-write", "kafka-first", "outbox").contains(publish)) {
                throw new IllegalArgumentException("simpler.publish is dual-write, kafka-first or outbox: " + publish);
            }
            this.publish = publish;
            this.haltAtCommand = haltAtCommand;
            this.topic = topic;
            // The relay's own producer settings: the send is as durable as the lab's, only its place differs.
            this.producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                    new StringSerializer(), new StringSerializer());
        }

        /** Called inside the command's transaction with the events it decided. */
        @Override
        public void append(List<EventEnvelope> events, TraceContext trace) {
            boolean due = isMoneyCommand(events) && commands.incrementAndGet() == haltAtCommand;
            switch (publish) {
                case "outbox" -> {
                    super.append(events, trace);
                    afterCommit(() -> haltIf(due, events, "after the database commit; the relay publishes it from"
                            + " ledger.events"));
                }
                case "dual-write" -> afterCommit(() -> {
                    haltIf(due, events, "after the database commit, before sending it to Kafka");
                    send(events);
                });
                default -> {
                    send(events);
                    haltIf(due, events, "after Kafka acknowledged it, before the database commit");
                }
            }
        }

        private static boolean isMoneyCommand(List<EventEnvelope> events) {
            return events.stream().anyMatch(e -> e.event() instanceof MoneyDeposited
                    || e.event() instanceof MoneyWithdrawn);
        }

        private static void afterCommit(Runnable action) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        }

        /** Sends and waits for the acknowledgement, as a careful handler would: the send is not the weak part. */
        private void send(List<EventEnvelope> events) {
            for (var event : events) {
                try {
                    producer.send(new ProducerRecord<>(topic, event.accountId().toString(), EventCodec.toJson(event)))
                            .get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("could not send event " + event.eventId() + " to Kafka", e);
                }
            }
        }

        private static void haltIf(boolean due, List<EventEnvelope> events, String where) {
            if (due) {
                var event = events.get(events.size() - 1);
                System.err.println("FAULT: command handler halting " + where + ": event " + event.eventId() + " ("
                        + event.event().type() + ", account " + event.accountId() + ", version " + event.version()
                        + ")");
                System.err.flush();
                Runtime.getRuntime().halt(99);
            }
        }

        @Override
        public void close() {
            producer.close();
        }
    }
}

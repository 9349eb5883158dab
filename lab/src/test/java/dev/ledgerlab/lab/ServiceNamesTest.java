package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** Every line of the lab's log names the service that wrote it, though the services share one JVM. */
class ServiceNamesTest {

    @Test
    void namesTheServiceByTheMdcThenThePackageThenTheThread() {
        ServiceNames.threads("outbox-relay", "debezium");

        assertThat(ServiceNames.of("projector", "org.springframework.boot.StartupInfoLogger", "main"))
                .isEqualTo("projector");
        assertThat(ServiceNames.of(null, "dev.ledgerlab.relay.capture.OutboxEngine", "whatever"))
                .isEqualTo("outbox-relay");
        assertThat(ServiceNames.of(null, "dev.ledgerlab.commandapi.web.CommandProblems", "http-nio-auto-1-exec-1"))
                .isEqualTo("command-api");
        assertThat(ServiceNames.of(null, "io.debezium.connector.postgresql.PostgresConnectorTask",
                "debezium-postgresconnector-ledger-change-event-source-coordinator")).isEqualTo("outbox-relay");
        assertThat(ServiceNames.of(null, "dev.ledgerlab.infra.EmbeddedPostgres", "main")).isEqualTo("lab");
    }

    @Test
    void putsTheServiceIntoEveryLineTheLabsLogbackConfigurationWrites() throws Exception {
        ServiceNames.threads("projector", "projection-listener");
        var context = new LoggerContext();
        // What SLF4J gives the JVM's own context: the MDC the services write to.
        context.setMDCAdapter(MDC.getMDCAdapter());
        var configurator = new JoranConfigurator();
        configurator.setContext(context);
        // The lab's own file, as the jar ships it (tests otherwise log with testkit's logback-test.xml).
        configurator.doConfigure(getClass().getResource("/logback.xml"));

        var console = (OutputStreamAppender<ILoggingEvent>) context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
                .getAppender("CONSOLE");
        var lines = new java.util.concurrent.CopyOnWriteArrayList<String>();
        var capture = new ch.qos.logback.core.AppenderBase<ILoggingEvent>() {
            @Override
            protected void append(ILoggingEvent event) {
                lines.add(new String(console.getEncoder().encode(event), java.nio.charset.StandardCharsets.UTF_8));
            }
        };
        capture.setContext(context);
        capture.start();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(capture);

        var listener = Executors.newSingleThreadExecutor(r -> new Thread(r, "projection-listener-0-C-1"));
        listener.submit(() -> context.getLogger("org.springframework.kafka.listener.KafkaMessageListenerContainer")
                .info("partitions assigned")).get(10, TimeUnit.SECONDS);
        listener.shutdown();
        MDC.put(ServiceNames.MDC_KEY, "command-api");
        try {
            context.getLogger("org.apache.catalina.core.StandardService").info("Starting service [Tomcat]");
        } finally {
            MDC.remove(ServiceNames.MDC_KEY);
        }
        context.getLogger("dev.ledgerlab.infra.EmbeddedKafka").info("Kafka up");
        context.stop();

        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("[projector]").contains("partitions assigned");
        assertThat(lines.get(1)).contains("[command-api]").contains("Starting service [Tomcat]");
        assertThat(lines.get(2)).contains("[lab]").contains("Kafka up");
    }
}

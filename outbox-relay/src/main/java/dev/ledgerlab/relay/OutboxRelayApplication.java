package dev.ledgerlab.relay;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import dev.ledgerlab.problems.ApiDocumentationConfiguration;
import dev.ledgerlab.problems.OperatorAccess;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Import;

// No operator calls of its own; the import checks the operator's credentials when given, and keeps Spring Security's
// auto-configuration (on the lab's one classpath) from locking every endpoint.
@SpringBootApplication
@ConfigurationPropertiesScan
@Import({OperatorAccess.class, ApiDocumentationConfiguration.class})
public class OutboxRelayApplication {

    /**
     * The service reads {@code outbox-relay.yml}, not {@code application.yml}: the lab runs every service on one
     * classpath, where one service's application.yml would hide the others'.
     */
    public static final String CONFIG_NAME = "outbox-relay";

    public static void main(String[] args) {
        new SpringApplicationBuilder(OutboxRelayApplication.class).properties("spring.config.name=" + CONFIG_NAME)
                .run(args);
    }
}

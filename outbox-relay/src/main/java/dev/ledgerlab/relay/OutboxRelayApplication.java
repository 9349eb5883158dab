package dev.ledgerlab.relay;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
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

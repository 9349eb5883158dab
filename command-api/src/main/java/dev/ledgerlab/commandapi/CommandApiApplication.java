package dev.ledgerlab.commandapi;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class CommandApiApplication {

    /**
     * The service reads {@code command-api.yml}, not {@code application.yml}: the lab runs every service on one classpath,
     * where one service's application.yml would hide the others'.
     */
    public static final String CONFIG_NAME = "command-api";

    public static void main(String[] args) {
        new SpringApplicationBuilder(CommandApiApplication.class).properties("spring.config.name=" + CONFIG_NAME).run(args);
    }
}

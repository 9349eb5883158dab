package dev.ledgerlab.commandapi;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import dev.ledgerlab.problems.ApiDocumentationConfiguration;
import dev.ledgerlab.problems.OperatorAccess;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Import;

// No operator calls of its own; the import checks the operator's credentials when given (actuator, the API
// description: commands and their reads skip the chain, OpenCommandsConfiguration), and keeps Spring Security's auto-configuration
// (on the lab's one classpath) from locking every endpoint.
@SpringBootApplication
@ConfigurationPropertiesScan
@Import({OperatorAccess.class, ApiDocumentationConfiguration.class})
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

package dev.ledgerlab.projector;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class ProjectorApplication {

    /**
     * The service reads {@code projector.yml}, not {@code application.yml}: the lab runs every service on one classpath,
     * where one service's application.yml would hide the others'.
     */
    public static final String CONFIG_NAME = "projector";

    public static void main(String[] args) {
        new SpringApplicationBuilder(ProjectorApplication.class).properties("spring.config.name=" + CONFIG_NAME).run(args);
    }
}

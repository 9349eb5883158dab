package dev.ledgerlab.commandapi;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class CommandApiApplication {

    public static void main(String[] args) {
        SpringApplication.run(CommandApiApplication.class, args);
    }
}

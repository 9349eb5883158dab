package dev.ledgerlab.commandapi.support;

import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.TestInfrastructure;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The one integration-test base of this module: the real application on a random port, over real HTTP, against
 * the PostgreSQL that {@link TestInfrastructure} chose for this JVM.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.config.name=" + dev.ledgerlab.commandapi.CommandApiApplication.CONFIG_NAME)
public abstract class CommandApiIntegrationTest {

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        var infra = TestInfrastructure.get();
        registry.add("spring.datasource.url", infra::jdbcUrl);
        registry.add("spring.datasource.username", infra::username);
        registry.add("spring.datasource.password", infra::password);
    }

    @Value("${local.server.port}")
    private int port;

    @Autowired
    protected JdbcClient jdbc;

    protected CommandApiClient api;

    @BeforeEach
    void client() {
        api = CommandApiClient.at(port);
    }

    /** Everything the write side stores, as one comparable value. */
    protected DatabaseSnapshot snapshot() {
        return DatabaseSnapshot.of(jdbc);
    }
}

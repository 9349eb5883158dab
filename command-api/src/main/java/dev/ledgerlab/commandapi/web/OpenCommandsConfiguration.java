package dev.ledgerlab.commandapi.web;

import dev.ledgerlab.problems.OperatorAccess.OpenCalls;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;

/**
 * Commands and their reads are open and the same for every caller: they skip Spring Security's filter chain
 * ({@link OpenCalls}). Actuator and the API description still pass it.
 */
@Configuration(proxyBeanMethods = false)
class OpenCommandsConfiguration {

    @Bean
    OpenCalls openCalls() {
        var paths = PathPatternRequestMatcher.withDefaults();
        return new OpenCalls(new OrRequestMatcher(paths.matcher("/accounts"), paths.matcher("/accounts/**"),
                paths.matcher("/transfers"), paths.matcher("/transfers/**"), paths.matcher("/ledger/total")));
    }
}

package dev.ledgerlab.projector.web;

import dev.ledgerlab.problems.ApiDocumentationConfiguration;
import dev.ledgerlab.problems.OperatorAccess;
import dev.ledgerlab.problems.OperatorAccess.OperatorCalls;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * The projector's operator calls: everything that clears, rebuilds or releases part of the projection, and the
 * invariant check, which reads the whole event store; and the pipeline page's login check. Reads of balances, status,
 * parked accounts, progress, the page and its readings stay open.
 */
@Configuration(proxyBeanMethods = false)
@Import({OperatorAccess.class, ApiDocumentationConfiguration.class})
class OperatorCallsConfiguration {

    @Bean
    OperatorCalls operatorCalls() {
        return new OperatorCalls(new OrRequestMatcher(
                call(HttpMethod.POST, "/projection/replay"),
                call(HttpMethod.POST, "/projection/rebuild"),
                call(HttpMethod.DELETE, "/projection/rebuild"),
                call(HttpMethod.POST, "/projection/parked/*/release"),
                call(HttpMethod.GET, "/projection/invariants"),
                call(HttpMethod.GET, "/pipeline/operator")));
    }

    /** Balance reads (with their read-your-writes wait) are the hot path and answer everyone alike. */
    @Bean
    OperatorAccess.OpenCalls openCalls() {
        return new OperatorAccess.OpenCalls(call(HttpMethod.GET, "/accounts/*/balance"));
    }

    private static RequestMatcher call(HttpMethod method, String path) {
        return PathPatternRequestMatcher.withDefaults().matcher(method, path);
    }
}

package dev.ledgerlab.commandapi.web;

import dev.ledgerlab.problems.ProblemResponses;
import dev.ledgerlab.problems.ProblemType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.util.List;
import org.springframework.stereotype.Component;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Counts every command as {@code ledger_commands_total{kind, outcome, type}} once it is answered. The outcome is
 * {@code accepted}, {@code replayed} (the stored answer to a retried Idempotency-Key), {@code version-conflict}
 * (its If-Match no longer held), {@code refused} (something about the request or the account: {@code type} names the
 * problem) or {@code failed} (a 5xx: the database away, an abort retried in vain, a bug; {@code type} again). Spring's
 * {@code http_server_requests} counts the same requests by status and URI; this says what became of the command.
 */
@Component
class CommandMetrics implements HandlerInterceptor, WebMvcConfigurer {

    private static final List<String> KINDS = List.of("open", "deposit", "withdraw", "transfer");

    private final MeterRegistry meters;

    CommandMetrics(MeterRegistry meters) {
        this.meters = meters;
        // Present from the start, at 0, so that a rate over them is defined before the first command.
        KINDS.forEach(kind -> counter(kind, "accepted", "none"));
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(this);
    }

    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
            Exception ex) {
        if (!(handler instanceof HandlerMethod method) || !method.hasMethodAnnotation(CommandKind.class)) {
            return;
        }
        var kind = method.getMethodAnnotation(CommandKind.class).value();
        int status = response.getStatus();
        if (status < 300) {
            counter(kind, "true".equals(response.getHeader("Idempotent-Replayed")) ? "replayed" : "accepted", "none")
                    .increment();
            return;
        }
        var type = request.getAttribute(ProblemResponses.PROBLEM_TYPE_ATTRIBUTE) instanceof URI uri
                && uri.toString().startsWith(ProblemType.BASE)
                ? uri.toString().substring(ProblemType.BASE.length()) : "status-" + status;
        var outcome = type.equals(ProblemType.VERSION_MISMATCH.slug()) ? "version-conflict"
                : status >= 500 ? "failed" : "refused";
        counter(kind, outcome, type).increment();
    }

    private Counter counter(String kind, String outcome, String type) {
        return Counter.builder("ledger.commands")
                .description("commands answered, by kind and outcome (and problem type when not accepted)")
                .tags("kind", kind, "outcome", outcome, "type", type)
                .register(meters);
    }
}

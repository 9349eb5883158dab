package dev.ledgerlab.commandapi.account;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The trace context of each request's server span, which Micrometer Tracing made (continuing the caller's
 * {@code traceparent} when one came, starting a trace otherwise): answered in the response's {@code traceparent}
 * header, so a client that sent none still learns its command's trace, and stored with the command's events
 * ({@link #of}), so the projector's span for each event is a child of this span. Written in W3C form by the tracer's
 * own propagator. Runs just inside Spring's observation filter (order {@code HIGHEST_PRECEDENCE + 1}), which opens the
 * server span; inner spans (Spring Security's) are not what a client or the projector should see as the command's.
 * Spring writes no such response header itself. With tracing off
 * ({@code management.tracing.export.enabled=false}) the events store what the caller sent, as before tracing existed.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 2)
public class RequestTraces extends OncePerRequestFilter {

    private static final String ATTRIBUTE = RequestTraces.class.getName();

    private final Tracer tracer;
    private final Propagator propagator;

    RequestTraces(Tracer tracer, Propagator propagator) {
        this.tracer = tracer;
        this.propagator = propagator;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        var span = tracer.currentSpan();
        if (span != null && !span.context().traceId().isEmpty()) {
            Map<String, String> headers = new HashMap<>();
            propagator.inject(span.context(), headers, Map::put);
            var context = TraceContext.of(headers.get("traceparent"), headers.get("tracestate"));
            if (context.traceparent() != null) {
                request.setAttribute(ATTRIBUTE, context);
                response.setHeader("traceparent", context.traceparent());
            }
        }
        chain.doFilter(request, response);
    }

    /** The server span's context of the current request, or the caller's own headers when there is no span. */
    public TraceContext of(String traceparent, String tracestate) {
        var attributes = RequestContextHolder.getRequestAttributes();
        var context = attributes == null ? null : attributes.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
        return context instanceof TraceContext current ? current : TraceContext.of(traceparent, tracestate);
    }
}

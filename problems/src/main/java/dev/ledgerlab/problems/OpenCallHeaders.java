package dev.ledgerlab.problems;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * On the open calls, which skip Spring Security's chain ({@link OperatorAccess.OpenCalls}), the two of its headers
 * that matter to a JSON API: no content sniffing, no caching of an answer that changes with every command.
 */
public final class OpenCallHeaders extends OncePerRequestFilter {

    private final RequestMatcher open;

    OpenCallHeaders(RequestMatcher open) {
        this.open = open;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (open.matches(request)) {
            response.setHeader("X-Content-Type-Options", "nosniff");
            response.setHeader("Cache-Control", "no-store");
        }
        chain.doFilter(request, response);
    }
}

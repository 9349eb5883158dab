package dev.ledgerlab.commandapi.web;

import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.web.servlet.config.annotation.CorsRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Lets the projector's pipeline page, served from another origin (its own port), send commands from the browser.
 * Only the commands and their reads, without credentials (a browser sends no cookie or Basic header with them), so
 * the operator's calls stay out of reach of any page; and only from the origins configured
 * ({@code ledger.lab.cors.allowed-origin-patterns}, by default any port of {@code localhost} and {@code 127.0.0.1}).
 * The commands are open to any HTTP client anyway: this only lets a browser read the answers.
 */
@Configuration(proxyBeanMethods = false)
class PageCorsConfiguration implements WebMvcConfigurer {

    private final List<String> origins;

    PageCorsConfiguration(@Value("${ledger.lab.cors.allowed-origin-patterns:}") List<String> origins) {
        this.origins = origins.stream().filter(origin -> !origin.isBlank()).toList();
    }

    @Override
    public void addCorsMappings(CorsRegistry registry) {
        if (origins.isEmpty()) {
            return;
        }
        for (var path : List.of("/accounts", "/accounts/**", "/transfers", "/transfers/**")) {
            registry.addMapping(path)
                    .allowedOriginPatterns(origins.toArray(String[]::new))
                    .allowedMethods("GET", "POST")
                    .allowedHeaders(HttpHeaders.CONTENT_TYPE, "Idempotency-Key", HttpHeaders.IF_MATCH, "traceparent",
                            "tracestate")
                    .exposedHeaders(HttpHeaders.ETAG, HttpHeaders.LOCATION, "Idempotent-Replayed", "traceparent")
                    .allowCredentials(false);
        }
    }
}

package dev.ledgerlab.problems;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Who may call what changes the projection or shows internals: the operator, by HTTP Basic, user
 * {@value #USER}, password from {@value #PASSWORD_PROPERTY} (the environment's {@code LEDGER_LAB_OPERATOR_PASSWORD}).
 * A service imports this and names its operator calls in an {@link OperatorCalls} bean; every other call stays
 * open. Without a password the operator calls are refused ({@code 403 operator-not-configured}) rather than left
 * open; without or with wrong credentials they answer {@code 401 operator-credentials-required} before any
 * controller runs, so nothing happens. Spring Security does the checking; the refusals are written by the service's
 * own {@link ProblemResponses}, as problem+json.
 */
@Configuration(proxyBeanMethods = false)
public class OperatorAccess {

    public static final String USER = "operator";
    public static final String ROLE = "OPERATOR";
    public static final String PASSWORD_PROPERTY = "ledger.lab.operator.password";

    /** The requests of a service that need the operator. */
    public record OperatorCalls(RequestMatcher requests) {
    }

    /**
     * The requests of a service that no credentials change in any way (its commands, its balance reads): they skip
     * Spring Security's filter chain altogether instead of passing a dozen filters that decide nothing for them
     * (measured: a sixth of a deposit's CPU in the command API, with the chain's observations). Everything else, the
     * operator calls, actuator, any call that answers the operator differently, still passes the chain. These
     * responses carry the two headers of the chain's that matter to a JSON API, {@code X-Content-Type-Options:
     * nosniff} and {@code Cache-Control: no-store} ({@link OpenCallHeaders}).
     */
    public record OpenCalls(RequestMatcher requests) {
    }

    /**
     * @param problems the service's exception resolver, through which the refusals become problems
     */
    @Bean
    SecurityFilterChain operatorSecurityFilterChain(HttpSecurity http, @Value("${" + PASSWORD_PROPERTY + ":}") String password,
            ObjectProvider<OperatorCalls> calls, ObjectProvider<OpenCalls> open,
            @Qualifier("handlerExceptionResolver") HandlerExceptionResolver problems)
            throws Exception {
        boolean configured = !password.isBlank();
        RequestMatcher operatorCalls = calls.getIfAvailable(() -> new OperatorCalls(request -> false)).requests();
        RequestMatcher openCalls = open.getIfAvailable(() -> new OpenCalls(request -> false)).requests();
        http.securityMatcher(request -> !openCalls.matches(request) || operatorCalls.matches(request));
        AuthenticationEntryPoint refuse = (request, response, e) -> problems.resolveException(request, response,
                null, configured
                        ? new ApiProblem(ProblemType.OPERATOR_CREDENTIALS_REQUIRED, "HTTP Basic credentials of user "
                                + USER + " are required; nothing was done")
                        : new ApiProblem(ProblemType.OPERATOR_NOT_CONFIGURED, "this service has no operator password ("
                                + PASSWORD_PROPERTY + ", LEDGER_LAB_OPERATOR_PASSWORD); nothing was done"));
        http.csrf(csrf -> csrf.disable())
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(cache -> cache.disable())
                .httpBasic(basic -> basic.authenticationEntryPoint(refuse))
                .exceptionHandling(e -> e.authenticationEntryPoint(refuse)
                        .accessDeniedHandler((request, response, denied) -> refuse.commence(request, response, null)))
                .authorizeHttpRequests(requests -> {
                    if (configured) {
                        requests.requestMatchers(operatorCalls).hasRole(ROLE);
                    } else {
                        requests.requestMatchers(operatorCalls).denyAll();
                    }
                    requests.anyRequest().permitAll();
                });
        return http.build();
    }

    /** The headers the security chain would have written, on the open calls that skip it. */
    @Bean
    FilterRegistrationBean<OpenCallHeaders> openCallHeaders(ObjectProvider<OpenCalls> open) {
        var registration = new FilterRegistrationBean<>(new OpenCallHeaders(
                open.getIfAvailable(() -> new OpenCalls(request -> false)).requests()));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    /**
     * BCrypt at its lowest cost, 2^4 rounds (1.6 ms a check here), not the default 2^10 (85 ms a check, paid by every
     * request that carries credentials: a page or a test polling a replay's progress queues behind it). The cost only
     * slows an attacker who stole the hash; this one lives in the memory of a process that holds the plain password in
     * its environment anyway. As a bean, it is also what Spring Security "upgrades" a stored hash to after a login, so
     * the first login does not re-encode the password at the default cost.
     */
    @Bean
    PasswordEncoder operatorPasswordEncoder() {
        return new BCryptPasswordEncoder(4);
    }

    /** The operator, or no one when no password is configured (never Spring Boot's generated default user). */
    @Bean
    UserDetailsService operatorUser(@Value("${" + PASSWORD_PROPERTY + ":}") String password, PasswordEncoder encoder) {
        if (password.isBlank()) {
            return new InMemoryUserDetailsManager();
        }
        return new InMemoryUserDetailsManager(User.withUsername(USER).password(encoder.encode(password)).roles(ROLE)
                .build());
    }

    /** Whether the caller authenticated as the operator. */
    public static boolean isOperator(Authentication authentication) {
        return authentication != null && authentication.getAuthorities().stream()
                .anyMatch(a -> a.getAuthority().equals("ROLE_" + ROLE));
    }
}

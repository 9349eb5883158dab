package dev.ledgerlab.commandapi.account;

import java.util.List;
import org.postgresql.util.PGobject;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.converter.Converter;
import org.springframework.data.convert.ReadingConverter;
import org.springframework.data.jdbc.core.convert.JdbcCustomConversions;
import org.springframework.data.jdbc.core.dialect.JdbcDialect;

/**
 * Lets Spring Data JDBC read {@code ledger.events.payload}, a {@code jsonb} column, into a String: PostgreSQL's driver
 * hands it over as a {@link PGobject}, whose value is the text PostgreSQL prints for it. The dialect's own
 * conversions are kept; writing goes through the cast in {@link EventLog#append}.
 */
@Configuration(proxyBeanMethods = false)
class JsonbConversions {

    @Bean
    JdbcCustomConversions jdbcCustomConversions(JdbcDialect dialect) {
        return JdbcCustomConversions.of(dialect, List.of(new JsonbAsText()));
    }

    @ReadingConverter
    static final class JsonbAsText implements Converter<PGobject, String> {

        @Override
        public String convert(PGobject jsonb) {
            return jsonb.getValue();
        }
    }
}

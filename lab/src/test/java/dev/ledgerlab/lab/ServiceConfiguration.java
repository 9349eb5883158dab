package dev.ledgerlab.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;

/**
 * What one service reads, found the way the service finds it: its application class (the one LOADER_MAIN names)
 * gives {@code CONFIG_NAME}, hence {@code <name>.yml}, and its package holds the {@code @ConfigurationProperties}
 * types. Environment variables are matched with Spring Boot's own relaxed binding, not an imitation of it.
 */
final class ServiceConfiguration {

    /** Variables read by something other than Spring's environment. */
    private static final Set<String> LAUNCHER_VARIABLES = Set.of(
            // Spring Boot's PropertiesLauncher: which application class of the lab jar to run.
            "LOADER_MAIN",
            // The JVM itself.
            "JAVA_TOOL_OPTIONS");

    private final Class<?> application;
    private final List<PropertySource<?>> yaml;
    private final Map<String, Class<?>> propertiesTypes;

    private ServiceConfiguration(Class<?> application, List<PropertySource<?>> yaml, Map<String, Class<?>> types) {
        this.application = application;
        this.yaml = yaml;
        this.propertiesTypes = types;
    }

    static ServiceConfiguration of(String applicationClassName) {
        try {
            var application = Class.forName(applicationClassName);
            var configName = (String) application.getField("CONFIG_NAME").get(null);
            var resource = new ClassPathResource(configName + ".yml");
            if (!resource.exists()) {
                throw new IllegalStateException(configName + ".yml, read by " + applicationClassName + ", is missing");
            }
            return new ServiceConfiguration(application, new YamlPropertySourceLoader().load(configName, resource),
                    propertiesTypes(application.getPackageName()));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(applicationClassName + " is not a service application class with "
                    + "a public static CONFIG_NAME", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Class<?> application() {
        return application;
    }

    Map<String, Class<?>> propertiesTypes() {
        return propertiesTypes;
    }

    /** Every property the service reads: the keys of its yml and the properties of its @ConfigurationProperties. */
    Set<ConfigurationPropertyName> knownProperties() {
        var names = new LinkedHashSet<ConfigurationPropertyName>();
        for (var source : yaml) {
            for (var name : ((EnumerablePropertySource<?>) source).getPropertyNames()) {
                names.add(ConfigurationPropertyName.adapt(name, '.'));
            }
        }
        propertiesTypes.forEach((prefix, type) -> propertyNames(type)
                .forEach(property -> names.add(ConfigurationPropertyName.of(prefix + "." + property))));
        return names;
    }

    /** Whether Spring Boot binds this environment variable to a property the service reads. */
    boolean understands(String variable) {
        if (LAUNCHER_VARIABLES.contains(variable)) {
            return true;
        }
        // Named like the real one: Spring applies its environment-variable mapping only to a source of that name.
        var source = ConfigurationPropertySource.from(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(variable, "value")));
        return knownProperties().stream().anyMatch(name -> source.getConfigurationProperty(name) != null);
    }

    /** The service's configuration as it would see it with these environment variables: they outrank its yml. */
    Binder binder(Map<String, String> environment) {
        var sources = new ArrayList<PropertySource<?>>();
        sources.add(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.copyOf(environment)));
        sources.addAll(yaml);
        // With ${...} resolved, as Spring does: the yml refers to its own settings (spring.flyway.placeholders.*).
        return new Binder(ConfigurationPropertySources.from(sources), new PropertySourcesPlaceholdersResolver(sources));
    }

    /** The service's @ConfigurationProperties object of this type, bound (and validated) from that configuration. */
    <T> T bind(Class<T> type, Map<String, String> environment) {
        var prefix = propertiesTypes.entrySet().stream().filter(e -> e.getValue() == type).map(Map.Entry::getKey)
                .findFirst().orElseThrow(() -> new IllegalArgumentException(type + " is not read by " + application));
        return binder(environment).bindOrCreate(prefix, type);
    }

    private static Map<String, Class<?>> propertiesTypes(String basePackage) {
        var scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        var types = new TreeMap<String, Class<?>>();
        for (var candidate : scanner.findCandidateComponents(basePackage)) {
            try {
                var type = Class.forName(candidate.getBeanClassName());
                var prefix = MergedAnnotations.from(type).get(ConfigurationProperties.class).getString("prefix");
                types.put(prefix, type);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return types;
    }

    private static List<String> propertyNames(Class<?> type) {
        if (type.isRecord()) {
            return Arrays.stream(type.getRecordComponents()).map(c -> kebabCase(c.getName())).toList();
        }
        return Arrays.stream(BeanUtils.getPropertyDescriptors(type)).filter(p -> p.getWriteMethod() != null)
                .map(p -> kebabCase(p.getName())).toList();
    }

    private static String kebabCase(String camelCase) {
        return camelCase.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}

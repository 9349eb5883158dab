package dev.ledgerlab.commandapi.account;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The versions a client's {@code If-Match} accepts. Entity tags are the account version in quotes ({@code "3"}),
 * as sent in {@code ETag}; {@code *} accepts any existing account; weak tags never match (RFC 9110 13.1.1).
 *
 * <p>Parsed here rather than with Spring's {@code ETag.parse}, which drops what it cannot read (seen with Spring
 * Framework 7.0.8: {@code 2} parses to no tag at all, {@code "3" "4"} to {@code "3"} alone): a malformed precondition
 * would then pass as a weaker one, or as none, where it must be a 400 that changes nothing.
 */
public record IfMatch(Set<Long> versions, boolean any, String header) {

    public static final IfMatch NONE = new IfMatch(Set.of(), true, null);

    private static final Pattern STRONG_VERSION_TAG = Pattern.compile("\"([1-9][0-9]{0,18})\"");

    /** @throws IllegalArgumentException when the header is not a list of entity tags */
    public static IfMatch parse(String header) {
        if (header == null) {
            return NONE;
        }
        var trimmed = header.trim();
        if (trimmed.equals("*")) {
            return new IfMatch(Set.of(), true, header);
        }
        var versions = new LinkedHashSet<Long>();
        for (var tag : trimmed.split(",", -1)) {
            var t = tag.trim();
            if (t.startsWith("W/\"") && t.endsWith("\"") && t.length() >= 4) {
                continue;
            }
            var m = STRONG_VERSION_TAG.matcher(t);
            if (!m.matches()) {
                throw new IllegalArgumentException("If-Match must be \"*\" or entity tags such as \"3\", got: " + header);
            }
            try {
                versions.add(Long.parseLong(m.group(1)));
            } catch (NumberFormatException tooLarge) {
                throw new IllegalArgumentException("If-Match names a version that cannot exist: " + header);
            }
        }
        return new IfMatch(Set.copyOf(versions), false, header);
    }

    public boolean matches(long version) {
        return any || versions.contains(version);
    }
}

package dev.ledgerlab.events;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * The contract's compatibility rule, in Avro's terms: the schemas of one event type, oldest first, are
 * BACKWARD_TRANSITIVE when the newest, as reader, resolves data written with every older one (Avro's
 * {@link SchemaCompatibility}, the rules a schema registry applies). Avro rather than rules of our own: its
 * resolution (a field the writer lacks needs a default or an alias; types must promote) is the one the course
 * teaches and registries enforce.
 */
final class ContractCheck {

    private ContractCheck() {
    }

    /** One line per incompatibility, empty when the newest schema reads every older one. */
    static List<String> backwardTransitive(String type, List<Schema> versions) {
        var problems = new ArrayList<String>();
        var reader = versions.get(versions.size() - 1);
        for (int i = 0; i < versions.size() - 1; i++) {
            var result = SchemaCompatibility.checkReaderWriterCompatibility(reader, versions.get(i)).getResult();
            for (var incompatibility : result.getIncompatibilities()) {
                problems.add(type + " version " + versions.size() + " cannot read version " + (i + 1) + ": "
                        + incompatibility.getType() + " at " + incompatibility.getLocation() + " ("
                        + incompatibility.getMessage() + ")");
            }
        }
        return problems;
    }

    static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }

    static Schema load(String type, int version) {
        try (var in = GoldenFixtures.class.getResourceAsStream("schemas/" + type + "/v" + version + ".avsc")) {
            return in == null ? null : new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads JSON written with {@code writer} as {@code reader} sees it (Avro's resolution), back as JSON. */
    static String resolve(String json, Schema writer, Schema reader) {
        try {
            var record = new GenericDatumReader<GenericRecord>(writer, reader)
                    .read(null, DecoderFactory.get().jsonDecoder(writer, json));
            var out = new ByteArrayOutputStream();
            var encoder = EncoderFactory.get().jsonEncoder(reader, out);
            new GenericDatumWriter<GenericRecord>(reader).write(record, encoder);
            encoder.flush();
            return out.toString(java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Method names from sluice/test/restricted.proto: contextual keywords are kept, reserved keywords
 * and literals get an underscore. Every flavor module (sluice-rpc-reactor, -futures, -grpc,
 * -rxjava, -mutiny, -blocking) compiles the code generated from that file in its test build, so
 * javac accepts what is checked here.
 */
class RestrictedNamesTest {
  /** Each proto rpc name of restricted.proto and the Java method name it must get. */
  private static final List<String[]> NAMES =
      List.of(
          new String[] {"Var", "var"},
          new String[] {"Yield", "yield"},
          new String[] {"Record", "record"},
          new String[] {"Sealed", "sealed"},
          new String[] {"Permits", "permits"},
          new String[] {"Exports", "exports"},
          new String[] {"Module", "module"},
          new String[] {"Open", "open"},
          new String[] {"Opens", "opens"},
          new String[] {"Provides", "provides"},
          new String[] {"Requires", "requires"},
          new String[] {"To", "to"},
          new String[] {"Transitive", "transitive"},
          new String[] {"Uses", "uses"},
          new String[] {"With", "with"},
          new String[] {"Default", "default_"},
          new String[] {"Class", "class_"},
          new String[] {"True", "true_"},
          new String[] {"Null", "null_"});

  private static final Pattern SERVER_BINDING = Pattern.compile("service::(\\w+)\\)");

  @ParameterizedTest(name = "{0}")
  @CsvSource({"reactor,Reactor", "futures,Futures", "grpc,Grpc", "rxjava,Rx", "mutiny,Mutiny",
      "blocking,Blocking"})
  void contextualKeywordsAreKeptAndReservedOnesEscaped(String flavor, String prefix, @TempDir Path work)
      throws IOException, InterruptedException {
    Path out = work.resolve("out");
    Protoc.Result r =
        Protoc.run(work, out, "flavor=" + flavor, Protoc.PROTO_DIR, List.of("sluice/test/restricted.proto"));
    assertThat(r.exitCode()).as("protoc failed: %s", r.stderr()).isZero();
    Path dir = out.resolve("io/sluice/rpc/it/restricted");
    String iface = Files.readString(dir.resolve(prefix + "Restricted.java"), StandardCharsets.UTF_8);
    String client = Files.readString(dir.resolve(prefix + "RestrictedClient.java"), StandardCharsets.UTF_8);
    String server = Files.readString(dir.resolve(prefix + "RestrictedServer.java"), StandardCharsets.UTF_8);

    // The server binds each rpc, in proto order, to the implementation's method of that name.
    Matcher m = SERVER_BINDING.matcher(server);
    List<String> bound = new java.util.ArrayList<>();
    while (m.find()) {
      bound.add(m.group(1));
    }
    assertThat(bound).containsExactlyElementsOf(NAMES.stream().map(n -> n[1]).toList());
    for (String[] n : NAMES) {
      Pattern declared = Pattern.compile("[>\\w] " + Pattern.quote(n[1]) + "\\(");
      assertThat(declared.matcher(iface).find()).as("%s declares %s()", prefix + "Restricted", n[1]).isTrue();
      assertThat(declared.matcher(client).find()).as("%s declares %s()", prefix + "RestrictedClient", n[1]).isTrue();
      assertThat(iface).contains("String METHOD_" + n[0].toUpperCase(java.util.Locale.ROOT) + " = \"" + n[0] + "\";");
    }
    for (String kept : List.of("var", "yield", "record", "sealed", "permits")) {
      assertThat(iface + client + server).doesNotContain(kept + "_(").doesNotContain("::" + kept + "_");
    }
  }

  @Test
  void onlyWhatJavacRejectsIsEscaped() {
    for (String word : List.of("abstract", "goto", "const", "_", "enum", "strictfp", "true", "false", "null")) {
      assertThat(Keywords.safe(word)).as(word).isEqualTo(word + "_");
    }
    for (String word : List.of("var", "yield", "record", "sealed", "permits", "module", "open", "opens",
        "exports", "requires", "transitive", "to", "uses", "provides", "with", "when", "say")) {
      assertThat(Keywords.safe(word)).as(word).isEqualTo(word);
    }
  }
}

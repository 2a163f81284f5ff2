package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regenerates the code for every test .proto through protoc and the plugin, and compares it with
 * the checked-in golden files under src/test/resources/golden/&lt;variant&gt;/. Any difference
 * fails the build. After an intended change, refresh them with {@code ./mvnw -pl sluice-rpc-compiler
 * test -Dsluice.golden.update=true} and review the diff.
 */
class GoldenFilesTest {
  private static final Path GOLDEN = Paths.get("src/test/resources/golden").toAbsolutePath();

  @ParameterizedTest(name = "{0}")
  @CsvSource({"default,", "javax,annotations=javax", "jakarta,flavor=reactor;annotations=jakarta",
      "futures,flavor=futures", "grpc,flavor=grpc", "rxjava,flavor=rxjava", "mutiny,flavor=mutiny",
      "blocking,flavor=blocking", "multi,flavor=futures;flavor=grpc;annotations=jakarta"})
  void generatedCodeMatchesGoldenFiles(String variant, String opt, @TempDir Path work)
      throws IOException, InterruptedException {
    String sluiceOpt = opt == null ? null : opt.replace(';', ',');
    Path out = work.resolve("out");
    Protoc.Result r = Protoc.run(work, out, sluiceOpt, Protoc.PROTO_DIR, Protoc.testProtos());
    assertThat(r.exitCode()).as("protoc failed: %s", r.stderr()).isZero();

    TreeMap<String, String> generated = read(out);
    assertThat(generated).as("generated files").isNotEmpty();
    Path goldenDir = GOLDEN.resolve(variant);
    if (Boolean.getBoolean("sluice.golden.update")) {
      if (Files.exists(goldenDir)) {
        try (Stream<Path> s = Files.walk(goldenDir)) {
          for (Path p : s.sorted((a, b) -> b.compareTo(a)).collect(Collectors.toList())) {
            Files.delete(p);
          }
        }
      }
      for (var e : generated.entrySet()) {
        Path g = goldenDir.resolve(e.getKey() + ".txt");
        Files.createDirectories(g.getParent());
        Files.writeString(g, e.getValue(), StandardCharsets.UTF_8);
      }
    }
    TreeMap<String, String> golden = read(goldenDir);
    TreeMap<String, String> goldenByJavaName = new TreeMap<>();
    golden.forEach((k, v) -> goldenByJavaName.put(k.substring(0, k.length() - ".txt".length()), v));
    assertThat(generated.keySet()).as("generated file names").isEqualTo(goldenByJavaName.keySet());
    for (String name : generated.keySet()) {
      assertThat(generated.get(name)).as("%s differs from golden/%s/%s.txt", name, variant, name)
          .isEqualTo(goldenByJavaName.get(name));
    }
  }

  private static TreeMap<String, String> read(Path root) throws IOException {
    TreeMap<String, String> files = new TreeMap<>();
    if (!Files.exists(root)) {
      return files;
    }
    try (Stream<Path> s = Files.walk(root)) {
      List<Path> all = s.filter(Files::isRegularFile).collect(Collectors.toList());
      for (Path p : all) {
        files.put(root.relativize(p).toString(), Files.readString(p, StandardCharsets.UTF_8));
      }
    }
    return files;
  }
}

package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.Edition;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * protoc accepts the plugin on editions files, and {@code --sluice_opt=lite} matches {@code
 * --java_out=lite:} (the outer classes of lite code have no {@code getDescriptor()}).
 * sluice/test/editions2023.proto, editions2024.proto and lite.proto are compiled by every flavor
 * module's test build.
 */
class EditionsAndLiteTest {

  @Test
  void theResponseDeclaresEditionsUpTo2024() {
    CodeGeneratorResponse r = Generator.generate(CodeGeneratorRequest.getDefaultInstance());
    assertThat(r.getSupportedFeatures() & CodeGeneratorResponse.Feature.FEATURE_SUPPORTS_EDITIONS_VALUE).isNotZero();
    assertThat(r.getSupportedFeatures() & CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL_VALUE).isNotZero();
    assertThat(r.getMinimumEdition()).isEqualTo(Edition.EDITION_PROTO2_VALUE);
    assertThat(r.getMaximumEdition()).isEqualTo(Edition.EDITION_2024_VALUE);
  }

  @Test
  void protocRunsThePluginOnEditionsFiles(@TempDir Path work) throws IOException, InterruptedException {
    Path out = work.resolve("out");
    Protoc.Result r =
        Protoc.run(work, out, "flavor=futures", Protoc.PROTO_DIR,
            List.of("sluice/test/editions2023.proto", "sluice/test/editions2024.proto"));
    assertThat(r.exitCode()).as("protoc failed: %s", r.stderr()).isZero();
    String server2023 = Files.readString(out.resolve("io/sluice/rpc/it/editions/FuturesOldNamesServer.java"));
    assertThat(server2023).contains(".fileDescriptor(io.sluice.rpc.it.editions.Editions2023OuterClass.getDescriptor())");
    String iface2024 = Files.readString(out.resolve("io/sluice/rpc/it/editions/FuturesNewNames.java"));
    assertThat(iface2024)
        .contains("MethodDescriptor<io.sluice.rpc.it.editions.Own, io.sluice.rpc.it.editions.Editions2024Proto.Nested>");
    String server2024 = Files.readString(out.resolve("io/sluice/rpc/it/editions/FuturesNewNamesServer.java"));
    assertThat(server2024).contains(".fileDescriptor(io.sluice.rpc.it.editions.Editions2024Proto.getDescriptor())");
  }

  @Test
  void liteOptionLeavesOutTheFileDescriptor(@TempDir Path work) throws IOException, InterruptedException {
    Path out = work.resolve("out");
    Protoc.Result r = Protoc.run(work, out, "flavor=futures,lite", Protoc.PROTO_DIR, List.of("sluice/test/echo.proto"));
    assertThat(r.exitCode()).as("protoc failed: %s", r.stderr()).isZero();
    String server = Files.readString(out.resolve("sluice/test/echo/FuturesEchoServiceServer.java"));
    assertThat(server).doesNotContain("fileDescriptor").doesNotContain("getDescriptor");
  }

  /**
   * What a project using {@code --java_out=lite:} gets: the code protoc-gen-sluice writes with
   * {@code lite} and protoc's lite classes refer to the same names; and the same code as for a
   * file that says {@code optimize_for = LITE_RUNTIME} (sluice/test/lite.proto, compiled by the
   * flavor modules).
   */
  @Test
  void liteOutputOfAFullFileMatchesALiteFile(@TempDir Path work) throws IOException, InterruptedException {
    Path dir = work.resolve("protos");
    Files.createDirectories(dir.resolve("sluice/test"));
    String lite = Files.readString(Protoc.PROTO_DIR.resolve("sluice/test/lite.proto"), StandardCharsets.UTF_8);
    String full = lite.replace("option optimize_for = LITE_RUNTIME;\n", "");
    assertThat(full).isNotEqualTo(lite);
    Files.writeString(dir.resolve("sluice/test/lite.proto"), full);
    Path out = work.resolve("out");
    Protoc.Result r = Protoc.run(work, out, "flavor=futures,lite", dir, List.of("sluice/test/lite.proto"));
    assertThat(r.exitCode()).as("protoc failed: %s", r.stderr()).isZero();
    Path golden = Path.of("src/test/resources/golden/futures/io/sluice/rpc/it/lite").toAbsolutePath();
    for (String name : List.of("FuturesLiteService.java", "FuturesLiteServiceClient.java", "FuturesLiteServiceServer.java")) {
      assertThat(Files.readString(out.resolve("io/sluice/rpc/it/lite/" + name)))
          .as(name)
          .isEqualTo(Files.readString(golden.resolve(name + ".txt")));
    }
    // protoc's own lite classes, for the same file: the outer class has no getDescriptor().
    Path javaOut = work.resolve("java");
    Files.createDirectories(javaOut);
    List<String> cmd = new ArrayList<>(List.of(Protoc.protoc().toString(), "-I" + dir,
        "--java_out=lite:" + javaOut, "sluice/test/lite.proto"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    String outer = Files.readString(javaOut.resolve("io/sluice/rpc/it/lite/LiteProtos.java"));
    assertThat(outer).doesNotContain("getDescriptor");
  }
}

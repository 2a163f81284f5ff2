package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad options and bad method options reach the user as protoc errors with a clear reason. */
class PluginOptionsTest {

  @Test
  void unknownFlavorIsRefused(@TempDir Path work) throws IOException, InterruptedException {
    Protoc.Result r =
        Protoc.run(work, work.resolve("out"), "flavor=akka", Protoc.PROTO_DIR, List.of("sluice/test/echo.proto"));
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr()).contains("flavor 'akka' is not supported")
        .contains("reactor, futures, grpc, rxjava, mutiny, blocking");
  }

  @Test
  void unknownAnnotationsFamilyIsRefused(@TempDir Path work) throws IOException, InterruptedException {
    Protoc.Result r =
        Protoc.run(work, work.resolve("out"), "annotations=spring", Protoc.PROTO_DIR, List.of("sluice/test/echo.proto"));
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr()).contains("annotations 'spring' is not one of none, javax, jakarta");
  }

  @Test
  void unknownOptionIsRefused(@TempDir Path work) throws IOException, InterruptedException {
    Protoc.Result r =
        Protoc.run(work, work.resolve("out"), "colour=red", Protoc.PROTO_DIR, List.of("sluice/test/echo.proto"));
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr()).contains("unknown option 'colour'");
  }

  @Test
  void fireAndForgetOnAStreamingMethodIsRefused(@TempDir Path work) throws IOException, InterruptedException {
    Path dir = work.resolve("protos");
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("bad.proto"),
        "syntax = \"proto3\";\npackage bad;\nimport \"sluice/options.proto\";\n"
            + "message M {}\nservice S {\n  rpc Push(M) returns (stream M) {\n"
            + "    option (sluice.method).fire_and_forget = true;\n  }\n}\n");
    Protoc.Result r = Protoc.run(work, work.resolve("out"), null, dir, List.of("bad.proto"));
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr())
        .contains("bad.proto: S.Push is SERVER_STREAMING")
        .contains("fire_and_forget needs a unary method");
  }

  @Test
  void optionParsing() {
    assertThat(PluginOptions.parse("").annotations).isEqualTo(PluginOptions.Annotations.NONE);
    assertThat(PluginOptions.parse(" flavor=reactor , annotations=jakarta ").annotations)
        .isEqualTo(PluginOptions.Annotations.JAKARTA);
  }

  @Test
  void flavorCanBeRepeated() {
    PluginOptions o = PluginOptions.parse("flavor=futures,flavor=reactor,flavor=futures");
    assertThat(o.flavors).containsExactly("futures", "reactor");
    assertThat(o.flavor).isEqualTo("futures");
    assertThat(PluginOptions.parse("").flavors).containsExactly("reactor");
  }
}

package io.sluice.rpc.compiler;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs the real protoc (Maven artifact com.google.protobuf:protoc, copied to target/protoc by the
 * build) with this module's plugin on the test class path, the way a user's build runs it.
 */
final class Protoc {
  static final Path PROTO_DIR = Paths.get("src/test/proto").toAbsolutePath();

  record Result(int exitCode, String stderr) {}

  private Protoc() {}

  static Path protoc() {
    Path p = Paths.get(System.getProperty("sluice.protoc", "target/protoc/protoc"));
    File f = p.toFile();
    if (!f.canExecute() && !f.setExecutable(true)) {
      throw new IllegalStateException("cannot make " + p + " executable");
    }
    return p;
  }

  /** A launcher script for the plugin: this JVM's java with the test class path. */
  static Path pluginLauncher(Path dir) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    String cp = System.getProperty("java.class.path");
    Path script = dir.resolve("protoc-gen-sluice");
    Files.writeString(
        script,
        "#!/bin/sh\nexec '" + java + "' -cp '" + cp + "' io.sluice.rpc.compiler.SluiceProtocPlugin \"$@\"\n",
        StandardCharsets.UTF_8);
    if (!script.toFile().setExecutable(true)) {
      throw new IllegalStateException("cannot make " + script + " executable");
    }
    return script;
  }

  /** All .proto files under src/test/proto, relative to it, sorted. */
  static List<String> testProtos() throws IOException {
    try (Stream<Path> s = Files.walk(PROTO_DIR)) {
      return s.filter(p -> p.toString().endsWith(".proto"))
          .map(p -> PROTO_DIR.relativize(p).toString())
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** Runs protoc with {@code --sluice_out=out} and the given options on {@code protos}. */
  static Result run(Path work, Path out, String sluiceOpt, Path protoDir, List<String> protos)
      throws IOException, InterruptedException {
    Files.createDirectories(out);
    List<String> cmd = new ArrayList<>();
    cmd.add(protoc().toString());
    cmd.add("--plugin=protoc-gen-sluice=" + pluginLauncher(work));
    cmd.add("-I" + protoDir);
    cmd.add("-I" + System.getProperty("sluice.options.proto", "../sluice-rpc/src/main/resources"));
    cmd.add("-I" + System.getProperty("sluice.protoc.include", "target/protoc/include"));
    cmd.add("--sluice_out=" + out);
    if (sluiceOpt != null) {
      cmd.add("--sluice_opt=" + sluiceOpt);
    }
    cmd.addAll(protos);
    Path err = work.resolve("stderr.txt");
    Process p =
        new ProcessBuilder(cmd)
            .directory(protoDir.toFile())
            .redirectErrorStream(false)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("protoc hung");
    }
    return new Result(p.exitValue(), Files.readString(err));
  }
}

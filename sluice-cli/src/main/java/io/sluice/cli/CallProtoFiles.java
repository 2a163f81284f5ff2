package io.sluice.cli;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.RuntimeVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./sluice call --proto FILE}: the schema of a server without reflection. A {@code .proto}
 * file is compiled by protoc into a descriptor set (with {@code --include_imports}); any other
 * file is read as a descriptor set already ({@code protoc --descriptor_set_out --include_imports},
 * grpcurl's protoset). protoc is the one the build uses: {@code $SLUICE_PROTOC}, else the copy
 * sluice-rpc-compiler unpacks ({@code $SLUICE_HOME}, set by ./sluice), else the Maven artifact of
 * this protobuf-java's version in {@code ~/.m2}, else {@code protoc} on the PATH. The well-known
 * types and {@code sluice/options.proto} are found on this jar's class path. Stateless.
 */
final class CallProtoFiles {
  /** The imports every .proto may use without an import path of its own. */
  private static final List<String> BUNDLED =
      List.of(
          "google/protobuf/any.proto", "google/protobuf/api.proto", "google/protobuf/descriptor.proto",
          "google/protobuf/duration.proto", "google/protobuf/empty.proto", "google/protobuf/field_mask.proto",
          "google/protobuf/source_context.proto", "google/protobuf/struct.proto",
          "google/protobuf/timestamp.proto", "google/protobuf/type.proto", "google/protobuf/wrappers.proto",
          "sluice/options.proto");

  private static final long PROTOC_SECONDS = 60;

  private CallProtoFiles() {}

  /** The files of {@code paths} (and what they import), {@code importPaths} searched by protoc. */
  static List<FileDescriptorProto> load(List<String> paths, List<String> importPaths) {
    List<FileDescriptorProto> out = new ArrayList<>();
    List<Path> protos = new ArrayList<>();
    for (String p : paths) {
      Path path = Path.of(p);
      if (!Files.isRegularFile(path)) {
        throw new CallException("--proto " + p + ": no such file");
      }
      if (p.endsWith(".proto")) {
        protos.add(path);
      } else {
        out.addAll(readSet(path));
      }
    }
    if (!protos.isEmpty()) {
      out.addAll(compile(protos, importPaths));
    }
    return out;
  }

  private static List<FileDescriptorProto> readSet(Path path) {
    try {
      return FileDescriptorSet.parseFrom(Files.readAllBytes(path), CallSchema.EXTENSIONS).getFileList();
    } catch (InvalidProtocolBufferException e) {
      throw new CallException(
          "--proto " + path + " is neither a .proto file nor a descriptor set (" + e.getMessage() + ")");
    } catch (IOException e) {
      throw new CallException("--proto " + path + ": " + e.getMessage());
    }
  }

  private static List<FileDescriptorProto> compile(List<Path> protos, List<String> importPaths) {
    Path tmp = null;
    try {
      tmp = Files.createTempDirectory("sluice-call-");
      Path include = tmp.resolve("include");
      for (String name : BUNDLED) {
        try (InputStream in = CallProtoFiles.class.getClassLoader().getResourceAsStream(name)) {
          if (in != null) {
            Files.createDirectories(include.resolve(name).getParent());
            Files.copy(in, include.resolve(name));
          }
        }
      }
      Path out = tmp.resolve("set.pb");
      List<String> cmd = new ArrayList<>(List.of(protoc(tmp).toString(), "--include_imports",
          "--descriptor_set_out=" + out));
      if (importPaths.isEmpty()) {
        for (Path p : protos) {
          Path dir = p.toAbsolutePath().getParent();
          if (!cmd.contains("-I" + dir)) {
            cmd.add("-I" + dir);
          }
        }
      }
      for (String dir : importPaths) {
        cmd.add("-I" + dir);
      }
      cmd.add("-I" + include);
      for (Path p : protos) {
        cmd.add(importPaths.isEmpty() ? p.toAbsolutePath().toString() : p.toString());
      }
      Path log = tmp.resolve("protoc.log");
      Process process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!process.waitFor(PROTOC_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new CallException("protoc did not finish within " + PROTOC_SECONDS + " s");
      }
      if (process.exitValue() != 0) {
        throw new CallException(
            "protoc could not compile " + protos + ":\n" + Files.readString(log, StandardCharsets.UTF_8).strip());
      }
      return readSet(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CallException("interrupted while protoc ran");
    } finally {
      if (tmp != null) {
        deleteTree(tmp);
      }
    }
  }

  /** protoc, as the class comment says; an executable copy in {@code tmp} if need be. */
  static Path protoc(Path tmp) throws IOException {
    String env = System.getenv("SLUICE_PROTOC");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    String home = System.getenv("SLUICE_HOME");
    if (home != null && !home.isBlank()) {
      Path built = Path.of(home, "sluice-rpc-compiler", "target", "protoc", "protoc");
      if (Files.isExecutable(built)) {
        return built;
      }
    }
    String version = RuntimeVersion.MAJOR + "." + RuntimeVersion.MINOR + "." + RuntimeVersion.PATCH;
    Path m2 =
        Path.of(System.getProperty("user.home"), ".m2", "repository", "com", "google", "protobuf", "protoc", version,
            "protoc-" + version + "-" + classifier() + ".exe");
    if (Files.isRegularFile(m2)) {
      if (Files.isExecutable(m2)) {
        return m2;
      }
      Path copy = tmp.resolve("protoc");
      Files.copy(m2, copy, StandardCopyOption.REPLACE_EXISTING);
      if (!copy.toFile().setExecutable(true)) {
        throw new CallException("cannot make a copy of " + m2 + " executable");
      }
      return copy;
    }
    return Path.of("protoc");
  }

  private static String classifier() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String o = os.contains("mac") ? "osx" : os.contains("win") ? "windows" : "linux";
    String a = arch.equals("aarch64") || arch.equals("arm64") ? "aarch_64" : "x86_64";
    return o + "-" + a;
  }

  private static void deleteTree(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // A temporary directory left behind is harmless.
    }
  }
}

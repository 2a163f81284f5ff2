package io.sluice.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class and file README.md, CHANGELOG.md and docs/ name must exist (GuideSnippetsTest checks
 * their links):
 *
 * <ul>
 *   <li>a fully-qualified {@code io.sluice...} name, anywhere on a page (code blocks too): the class
 *       is a source file of some module, or its package is one a {@code .proto} generates into; a
 *       name without a class is a package with sources;
 *   <li>a repository path in backticks ({@code `sluice-benchmarks/run.sh`}, its first segment a
 *       top-level entry of the repository): that file or folder;
 *   <li>a file name in backticks ({@code `RpcVsRaw.java`}, {@code `DESIGN.md`}): a file of that name
 *       somewhere in the repository.
 * </ul>
 */
class DocsReferencesTest {
  private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])io\\.sluice(?:\\.[A-Za-z_]\\w*)+");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\s]+)`");
  // .proto files are left out: some are unpacked from jars at build time (grpc-interop.md).
  private static final Pattern FILE_NAME = Pattern.compile("[\\w.-]+\\.(?:md|java|sh)");
  private static final Pattern JAVA_PACKAGE = Pattern.compile("option\\s+java_package\\s*=\\s*\"([\\w.]+)\"");

  private final Path root = repositoryRoot();

  @Test
  void everyNamedClassAndFileExists() {
    Sources sources = Sources.scan(root);
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path page : pages(root)) {
      List<String> lines = read(page);
      for (int i = 0; i < lines.size(); i++) {
        String where = root.relativize(page) + ":" + (i + 1) + ": ";
        for (String problem : problems(lines.get(i), sources)) {
          problems.add(where + problem);
        }
        checked += references(lines.get(i));
      }
    }
    assertThat(checked).as("references found in the docs (the scan must see some)").isGreaterThan(50);
    assertThat(problems).as("classes and files named in README.md, CHANGELOG.md and docs/").isEmpty();
  }

  /** The check itself, on lines made up for it: it must catch what it is for. */
  @Test
  void missingClassesAndFilesAreReported() {
    Sources sources = Sources.scan(root);
    assertThat(problems("run `io.sluice.examples.bench.RpcVsRaw` here", sources))
        .containsExactly("no class io.sluice.examples.bench.RpcVsRaw");
    assertThat(problems("the rules in `PROTOCOL-NOTES.md` §1.10", sources))
        .containsExactly("no file named PROTOCOL-NOTES.md in the repository");
    assertThat(problems("see `sluice-examples/src/main/java/io/sluice/examples/Nope.java`", sources))
        .containsExactly("no such path sluice-examples/src/main/java/io/sluice/examples/Nope.java");
    assertThat(problems("java -cp x io.sluice.nosuchpackage", sources))
        .containsExactly("no package io.sluice.nosuchpackage");
    // and what exists passes, generated classes included
    assertThat(problems("`io.sluice.core.SluiceServer#stop`, `io.sluice.reactor.SluiceServer.Builder`, "
        + "`io.sluice.benchmarks.rpc.ReactorBenchClient`, `io.sluice.internal`, `sluice-benchmarks/run.sh`, "
        + "`QuickStart.java`, `pom.xml`", sources)).isEmpty();
  }

  private static int references(String line) {
    int n = 0;
    for (Matcher m = QUALIFIED.matcher(line); m.find(); ) {
      n++;
    }
    for (Matcher m = CODE_SPAN.matcher(line); m.find(); ) {
      n++;
    }
    return n;
  }

  static List<String> problems(String line, Sources sources) {
    List<String> problems = new ArrayList<>();
    for (Matcher m = QUALIFIED.matcher(line); m.find(); ) {
      String problem = sources.checkQualified(m.group());
      if (problem != null) {
        problems.add(problem);
      }
    }
    for (Matcher m = CODE_SPAN.matcher(line); m.find(); ) {
      String token = m.group(1).replaceAll("[#:].*$", "");
      if (token.contains("...") || token.contains("*") || token.contains("<") || token.contains("{")
          || token.startsWith("io.sluice") || token.contains("/target/")) { // build output
        continue;
      }
      int slash = token.indexOf('/');
      if (slash > 0) {
        String first = token.substring(0, slash);
        if (Files.isDirectory(sources.root.resolve(first)) && !Files.exists(sources.root.resolve(token))) {
          problems.add("no such path " + token);
        }
      } else if (FILE_NAME.matcher(token).matches() && !sources.fileNames.contains(token)) {
        problems.add("no file named " + token + " in the repository");
      }
    }
    return problems;
  }

  /** What the repository holds: file names, Java sources by name, packages with sources or protos. */
  static final class Sources {
    final Path root;
    final Set<String> fileNames = new HashSet<>();
    final Set<String> classes = new HashSet<>();
    final Set<String> packages = new HashSet<>();
    final Set<String> generatedPackages = new HashSet<>();
    /** Every pom.xml's text: a build that rewrites a .proto's java_package names the new package. */
    final StringBuilder poms = new StringBuilder();

    private Sources(Path root) {
      this.root = root;
    }

    static Sources scan(Path root) {
      Sources s = new Sources(root);
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
          String rel = root.relativize(f).toString().replace('\\', '/');
          if (rel.startsWith(".git/") || rel.contains("/target/") || rel.startsWith("target/")
              || rel.contains("node_modules/")) {
            continue;
          }
          String name = f.getFileName().toString();
          s.fileNames.add(name);
          int java = rel.indexOf("/java/io/sluice/");
          if (name.endsWith(".java") && java >= 0) {
            String fqn = rel.substring(java + "/java/".length(), rel.length() - ".java".length()).replace('/', '.');
            s.classes.add(fqn);
            s.packages.add(fqn.substring(0, fqn.lastIndexOf('.')));
          } else if (name.equals("pom.xml")) {
            s.poms.append(Files.readString(f));
          } else if (name.endsWith(".proto")) {
            Matcher m = JAVA_PACKAGE.matcher(Files.readString(f));
            while (m.find()) {
              s.generatedPackages.add(m.group(1));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return s;
    }

    /** null when the name exists, else what is missing. */
    String checkQualified(String name) {
      String[] parts = name.split("\\.");
      StringBuilder pkg = new StringBuilder(parts[0]);
      for (int i = 1; i < parts.length; i++) {
        if (Character.isUpperCase(parts[i].charAt(0))) {
          String cls = pkg + "." + parts[i];
          if (classes.contains(cls) || generated(pkg.toString())) {
            return null;
          }
          return "no class " + cls;
        }
        pkg.append('.').append(parts[i]);
      }
      String p = pkg.toString();
      boolean known = packages.stream().anyMatch(k -> k.equals(p) || k.startsWith(p + "."))
          || generated(p);
      return known ? null : "no package " + p;
    }

    private boolean generated(String pkg) {
      return generatedPackages.contains(pkg) || poms.indexOf(pkg + ".") >= 0;
    }
  }

  static List<Path> pages(Path root) {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    if (Files.isRegularFile(root.resolve("CHANGELOG.md"))) {
      pages.add(root.resolve("CHANGELOG.md"));
    }
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
  }
}

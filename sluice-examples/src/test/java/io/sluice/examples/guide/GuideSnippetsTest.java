package io.sluice.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps README.md and the Markdown under docs/ from rotting.
 *
 * <p>A fenced code block preceded by {@code <!-- snippet: PATH#TAG -->} must equal the region of
 * PATH (relative to the repository root) between {@code tag::TAG[]} and {@code end::TAG[]} markers
 * (any comment style; several regions with one tag are joined, each one dedented on its own; lines
 * holding a marker are left out); {@code <!-- snippet: PATH -->} compares the whole file. Every
 * {@code java} block needs such a line, and every code block of README.md and docs/guide names its
 * language. Relative links must point at files that exist, and {@code #anchors} at headings.
 */
class GuideSnippetsTest {
  private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");
  private static final Pattern SNIPPET = Pattern.compile("^<!-- snippet: ([^#\\s]+)(?:#(\\S+))? -->$");
  private static final Pattern MARKER = Pattern.compile("(tag|end)::([A-Za-z0-9_.-]+)\\[\\]");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  private final Path root = repositoryRoot();

  @Test
  void everyCodeBlockMatchesItsSource() {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      String name = root.relativize(page).toString();
      boolean front = name.equals("README.md") || name.startsWith("docs/guide/");
      List<String> lines = read(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher open = FENCE.matcher(lines.get(i));
        if (!open.matches()) {
          continue;
        }
        String lang = open.group(1);
        int start = i + 1;
        int end = start;
        while (end < lines.size() && !lines.get(end).startsWith("```")) {
          end++;
        }
        List<String> block = lines.subList(start, Math.min(end, lines.size()));
        String where = name + ":" + (i + 1);
        Matcher annotation = SNIPPET.matcher(previousNonBlank(lines, i));
        if (annotation.matches()) {
          checked++;
          String problem = compare(block, annotation.group(1), annotation.group(2));
          if (problem != null) {
            problems.add(where + ": " + problem);
          }
        } else if (lang.equals("java")) {
          problems.add(where + ": a java block needs <!-- snippet: PATH#TAG --> on the line before it");
        } else if (front && lang.isEmpty()) {
          problems.add(where + ": name the block's language (```text for output)");
        }
        i = end;
      }
    }
    assertThat(problems).as("code blocks in README.md and docs/ (%d checked)", checked).isEmpty();
    assertThat(checked).as("snippets checked").isPositive();
  }

  @Test
  void relativeLinksResolve() {
    List<String> problems = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    for (Path page : pages()) {
      List<String> lines = read(page);
      boolean inCode = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.startsWith("```")) {
          inCode = !inCode;
          continue;
        }
        if (inCode) {
          continue;
        }
        Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z]+:.*")) {
            continue; // https:, mailto:
          }
          int hash = target.indexOf('#');
          String file = hash < 0 ? target : target.substring(0, hash);
          String anchor = hash < 0 ? null : target.substring(hash + 1);
          Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
          String where = root.relativize(page) + ":" + (i + 1) + ": " + target;
          if (!Files.exists(resolved)) {
            problems.add(where + " (no such file)");
          } else if (anchor != null && resolved.toString().endsWith(".md")
              && !anchors.computeIfAbsent(resolved, GuideSnippetsTest::headingAnchors).contains(anchor)) {
            problems.add(where + " (no such heading)");
          }
        }
      }
    }
    assertThat(problems).as("relative links in README.md and docs/").isEmpty();
  }

  /** null when the block equals its source, else what differs. */
  private String compare(List<String> block, String path, String tag) {
    Path source = root.resolve(path).normalize();
    if (!Files.isRegularFile(source)) {
      return "no such file " + path;
    }
    List<String> expected = tag == null ? wholeFile(read(source)) : region(read(source), tag);
    if (expected == null) {
      return "no region tag::" + tag + "[] ... end::" + tag + "[] in " + path;
    }
    List<String> actual = trimTrailingBlank(new ArrayList<>(block));
    for (int i = 0; i < Math.max(actual.size(), expected.size()); i++) {
      String a = i < actual.size() ? actual.get(i) : "<end of block>";
      String e = i < expected.size() ? expected.get(i) : "<end of source region>";
      if (!a.equals(e)) {
        return "differs from " + path + (tag == null ? "" : "#" + tag) + " at line " + (i + 1)
            + " of the block:\n    page:   " + a + "\n    source: " + e
            + "\n  the source region reads:\n" + String.join("\n", expected);
      }
    }
    return null;
  }

  /** The lines of every region tagged {@code tag}, each region dedented, joined; null if none. */
  static List<String> region(List<String> source, String tag) {
    List<String> out = new ArrayList<>();
    List<String> current = null;
    boolean found = false;
    for (String line : source) {
      Matcher m = MARKER.matcher(line);
      if (m.find()) {
        if (m.group(2).equals(tag)) {
          if (m.group(1).equals("tag")) {
            current = new ArrayList<>();
            found = true;
          } else if (current != null) {
            out.addAll(dedent(current));
            current = null;
          }
        }
        continue; // marker lines of any tag stay out of the snippet
      }
      if (current != null) {
        current.add(line);
      }
    }
    if (current != null) {
      return null; // unclosed
    }
    return found ? trimTrailingBlank(out) : null;
  }

  private static List<String> wholeFile(List<String> source) {
    return trimTrailingBlank(
        source.stream().filter(l -> !MARKER.matcher(l).find()).collect(Collectors.toCollection(ArrayList::new)));
  }

  private static List<String> dedent(List<String> lines) {
    int indent = lines.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).collect(Collectors.toList());
  }

  private static List<String> trimTrailingBlank(List<String> lines) {
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
      lines.remove(lines.size() - 1);
    }
    return lines;
  }

  private static String previousNonBlank(List<String> lines, int index) {
    for (int i = index - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        return lines.get(i).strip();
      }
    }
    return "";
  }

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to '-', repeats numbered. */
  private static Set<String> headingAnchors(Path page) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inCode = false;
    for (String line : read(page)) {
      if (line.startsWith("```")) {
        inCode = !inCode;
      }
      if (inCode || !line.startsWith("#")) {
        continue;
      }
      String text = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
      String slug = text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum);
      anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
    }
    return anchors;
  }

  private List<Path> pages() {
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

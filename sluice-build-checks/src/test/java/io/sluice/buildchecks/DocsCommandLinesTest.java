package io.sluice.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.benchmarks.BenchMain;
import io.sluice.cli.Main;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ./sluice ...} command line written in README.md, CHANGELOG.md and docs/ parses with
 * the command's own parser, without running anything: {@link Main#check} for the jar's commands,
 * {@link BenchMain#check} for {@code bench}; an unknown command, an unknown option, a stray word or
 * an option without its value fails the test. {@code protoc} and {@code jmh} take their tools' own
 * options and are not checked.
 *
 * <p>How a line is read: in prose only inline code counts, and it ends at its closing backtick
 * (maybe on a following line); a line in a code block ends at its end ({@code \} joins the next); a {@code #} comment, {@code &}, {@code ;}, {@code )}, a redirection or a
 * {@code |} outside brackets ends the command. Optional parts keep their contents ({@code [--tls]}
 * is {@code --tls}; {@code [--ca FILE | --insecure]} is both), and {@code ...} is dropped. Option
 * values are placeholders as often as not, so only names and arity are checked. A line whose
 * command is a placeholder ({@code ./sluice <command>}, {@code ./sluice help COMMAND}) is skipped.
 *
 * <p>This lives here, not beside GuideSnippetsTest in sluice-examples, because sluice-cli depends
 * on sluice-examples: this module comes after both parsers' modules.
 */
class DocsCommandLinesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everySluiceCommandLineInTheDocsParses() {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      List<String> lines = read(page);
      for (Found f : commandLines(lines)) {
        String problem = check(f.argv());
        checked++;
        if (problem != null) {
          problems.add(ROOT.relativize(page) + ":" + f.line() + ": ./sluice " + String.join(" ", f.argv())
              + " -> " + problem);
        }
      }
    }
    assertThat(checked).as("./sluice command lines found in the docs (the scan must see them)")
        .isGreaterThan(40);
    assertThat(problems).as("./sluice command lines that the CLI's parser refuses").isEmpty();
  }

  /** The check itself, on lines made up for it: it must catch what it is for. */
  @Test
  void unknownCommandsAndOptionsAreReported() {
    List<String> page = List.of(
        "Run `./sluice demo --transport uds --nosuch` first.",
        "```sh",
        "./sluice serve --port 7878 &     # a command that does not exist",
        "./sluice bench --compare --warmpu 30",
        "mvn -q install   # what ./sluice bench builds first (a comment, not a command line)",
        "./sluice client --servers a:1,b:2 --lease \\",
        "  --port",
        "./sluice bench --scale --connections 10 --concurrency 4",
        "```",
        "and `./sluice server [--tls [--cert FILE --key FILE]] [--lease | --lease-fixed 1000:50]` is fine,",
        "as are `./sluice bench --connections 16 [--concurrency N --response-size B]`,",
        "`./sluice help COMMAND`, `./sluice protoc --anything` and `./sluice jmh -prof gc`.",
        "Prose that names ./sluice bench is not a command line; `./sluice bench --pair",
        "sluice-reactor,sluice-futures --epochs` goes on in the next line, `./sluice server|clients --io nio`.",
        "`./sluice call -d '{\"a\": 1, \"b\": [2]}' h:1 p.S/M` and `./sluice call -d '{\"a\": 1}' h:1 list`.");
    List<Found> found = commandLines(page);
    assertThat(found).extracting(Found::line).containsExactly(1, 3, 4, 6, 8, 10, 11, 12, 12, 13, 14, 14, 15, 15);
    List<String> verdicts = new ArrayList<>();
    for (Found f : found) {
      verdicts.add(String.valueOf(check(f.argv())));
    }
    assertThat(verdicts.get(0)).contains("unknown option --nosuch");
    assertThat(verdicts.get(1)).contains("unknown command 'serve'");
    assertThat(verdicts.get(2)).contains("--warmpu");
    assertThat(verdicts.get(3)).contains("--port needs a value");
    assertThat(verdicts.get(4)).contains("--concurrency");
    assertThat(verdicts.subList(5, 9)).containsOnly("null");
    assertThat(found.get(9).argv()).containsExactly("bench", "--pair", "sluice-reactor,sluice-futures", "--epochs");
    assertThat(verdicts.get(9)).contains("--epochs needs a value");
    assertThat(verdicts.get(10)).isEqualTo("null");
    assertThat(verdicts.get(11)).contains("unknown command 'clients'");
    assertThat(found.get(12).argv()).containsExactly("call", "-d", "{\"a\": 1, \"b\": [2]}", "h:1", "p.S/M");
    assertThat(verdicts.get(12)).isEqualTo("null");
    assertThat(verdicts.get(13)).contains("-d goes with a call");
  }

  /** A command line found on a page: its line number (1-based) and the words after ./sluice. */
  record Found(int line, List<String> argv) {}

  /** null when the line parses, else the parser's complaint. */
  static String check(List<String> argv) {
    String[] a = argv.toArray(new String[0]);
    try {
      if (!Main.check(a) && a[0].equals("bench")) {
        BenchMain.check(a);
      }
      return null;
    } catch (RuntimeException e) {
      return e.getMessage();
    }
  }

  static List<Found> commandLines(List<String> lines) {
    List<Found> found = new ArrayList<>();
    boolean inCode = false;
    boolean inSpan = false; // an inline code span opened on an earlier line of the paragraph
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("```")) {
        inCode = !inCode;
        inSpan = false;
        continue;
      }
      boolean spanAtStart = inSpan;
      if (!inCode) {
        inSpan = !line.isBlank() && (inSpan ^ line.chars().filter(c -> c == '`').count() % 2 == 1);
      }
      int number = i + 1;
      if (inCode) {
        while (line.endsWith("\\") && i + 1 < lines.size()) {
          line = line.substring(0, line.length() - 1) + " " + lines.get(++i);
        }
      }
      line = line.replace("\\|", "|");
      for (int at = line.indexOf("./sluice"); at >= 0; at = line.indexOf("./sluice", at + 1)) {
        int after = at + "./sluice".length();
        boolean startsWord = at == 0 || " `('\"$".indexOf(line.charAt(at - 1)) >= 0;
        boolean endsWord = after == line.length() || " `".indexOf(line.charAt(after)) >= 0;
        if (!startsWord || !endsWord) {
          continue;
        }
        String text = line.substring(after);
        if (inCode && line.substring(0, at).matches(".*(^|\\s)#.*")) {
          continue; // in a shell comment
        }
        if (!inCode) {
          if (spanAtStart == (line.substring(0, at).chars().filter(c -> c == '`').count() % 2 == 1)) {
            continue; // prose, not a command line
          }
          // inline code ends at its closing backtick, maybe on a following line
          for (int next = i + 1; text.indexOf('`') < 0 && next < lines.size() && !lines.get(next).isBlank();
              next++) {
            text = text + " " + lines.get(next).replace("\\|", "|");
          }
          int tick = text.indexOf('`');
          text = tick < 0 ? text : text.substring(0, tick);
        }
        List<String> argv = words(text);
        if (argv.isEmpty() || placeholder(argv)) {
          continue;
        }
        for (String command : argv.get(0).split("\\|")) { // ./sluice server|client --io E
          List<String> one = new ArrayList<>(argv);
          one.set(0, command);
          found.add(new Found(number, one));
        }
      }
    }
    return found;
  }

  private static final Set<String> ENDS = Set.of("&", "&&", ";", "||", "#");

  private static List<String> words(String text) {
    List<String> words = new ArrayList<>();
    int depth = 0;
    for (String w : shellWords(text)) {
      if (w.startsWith(QUOTED)) { // a quoted word is one argument, whatever it holds
        String quoted = w.substring(QUOTED.length());
        if (quoted.endsWith(")")) { // but a ')' closes the substitution the command was in
          words.add(quoted.substring(0, quoted.length() - 1));
          break;
        }
        words.add(quoted);
        continue;
      }
      if (ENDS.contains(w) || w.startsWith("#") || w.startsWith(">") || w.startsWith("2>")
          || w.startsWith("<") && !w.endsWith(">") || (w.equals("|") && depth == 0)) {
        break;
      }
      int open = (int) w.chars().filter(c -> c == '[').count();
      int close = (int) w.chars().filter(c -> c == ']').count();
      depth = Math.max(0, depth + open - close);
      String word = w.replace("[", "").replace("]", "");
      // A ')' ends a command substitution or subshell: cp="$(./sluice bench --print-classpath)".
      boolean end = word.endsWith(";") || word.endsWith("&") || word.endsWith(")");
      word = word.replaceAll("[;&)]+$", "");
      if (!word.isEmpty() && !word.equals("|") && !word.equals("...") && !word.endsWith("…")) {
        words.add(word);
      }
      if (end) {
        break;
      }
    }
    return words;
  }

  /** Marks a word that had quotes in it (not a character a doc line holds). */
  private static final String QUOTED = "\u0000";

  /**
   * {@code text} split at blanks outside quotes, as a shell splits it: {@code -d '{"a": 1}'} is
   * two words, and the quotes go; a word that had quotes starts with {@link #QUOTED}.
   */
  private static List<String> shellWords(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    boolean quoted = false;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        quoted = true;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(quoted ? QUOTED + word : word.toString());
        }
        word.setLength(0);
        inWord = false;
        quoted = false;
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(quoted ? QUOTED + word : word.toString());
    }
    return words;
  }

  /** {@code ./sluice <command>}, {@code ./sluice COMMAND --help}, {@code ./sluice help COMMAND}. */
  private static boolean placeholder(List<String> argv) {
    String first = argv.get(0);
    String second = argv.size() > 1 ? argv.get(1) : "";
    return first.matches("<.*>|[A-Z_]+") || first.equals("help") && second.matches("<.*>|[A-Z_]+");
  }

  private static List<Path> pages() {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    if (Files.isRegularFile(ROOT.resolve("CHANGELOG.md"))) {
      pages.add(ROOT.resolve("CHANGELOG.md"));
    }
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
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
}

package io.sluice.browserdemo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The page's two files, read once from this jar: {@code page/index.html} (in the sources) and
 * {@code page/app.js} (the rsocket-js bundle that bundle.sh builds with npm; absent from a jar built
 * without npm, and then the page is unavailable). Immutable; any thread.
 */
final class Page {
  private final byte[] html;
  private final byte[] script;

  private Page(byte[] html, byte[] script) {
    this.html = html;
    this.script = script;
  }

  /** The files this jar carries. */
  static Page fromJar() {
    byte[] html = read("page/index.html");
    if (html == null) {
      throw new IllegalStateException("page/index.html is missing from the jar");
    }
    return new Page(html, read("page/app.js"));
  }

  /** A page with the given script, or none (for tests). */
  static Page of(byte[] html, byte[] script) {
    return new Page(html.clone(), script == null ? null : script.clone());
  }

  boolean available() {
    return script != null;
  }

  byte[] html() {
    return html;
  }

  /** The bundle; only when {@link #available()}. */
  byte[] script() {
    return script;
  }

  private static byte[] read(String name) {
    try (InputStream in = Page.class.getResourceAsStream(name)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package io.sluice.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits text holding JSON values one after the other (NDJSON, or values separated by any
 * whitespace) into one string per value, by bracket depth outside strings. It does not check the
 * JSON: each piece goes to protobuf's JSON parser, which does. Stateless.
 */
final class CallJson {
  private CallJson() {}

  static List<String> split(String text) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = -1;
    boolean inString = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (start < 0) {
        if (Character.isWhitespace(c)) {
          continue;
        }
        start = i;
      }
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
        continue;
      }
      if (c == '"') {
        inString = true;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        depth--;
      }
      if (depth <= 0 && (c == '}' || c == ']' || i + 1 == text.length()
          || (depth == 0 && Character.isWhitespace(text.charAt(i + 1))))) {
        out.add(text.substring(start, i + 1));
        start = -1;
        depth = 0;
      }
    }
    if (start >= 0) {
      out.add(text.substring(start));
    }
    return out;
  }
}

package io.sluice.rpc;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Call headers: an ordered list of ASCII key/value pairs, keys may repeat. Immutable.
 *
 * <p>Keys are 1..255 characters of lower-case letters, digits, {@code -}, {@code _} and {@code .}
 * (the characters gRPC allows in metadata keys). Values are 0..65535 printable ASCII characters
 * (0x20..0x7E). At most 255 pairs per call. Bad input fails with {@link IllegalArgumentException}
 * when the headers are built, never on the wire.
 *
 * <p><b>Binary values.</b> A key ending in {@value #BINARY_SUFFIX} holds bytes, as in gRPC
 * metadata: {@link Builder#addBinary} stores them base64-encoded (the standard alphabet, without
 * padding, as gRPC sends them) and {@link #getBinary} decodes them; a value added as text under
 * such a key must be base64 (padded or not). The value is thus still ASCII, so every transport
 * that carries text headers carries binary ones too; binary values hold up to 49,149 bytes.
 *
 * <p>Safe to share between threads; a {@link Builder} is for one thread. Holds no buffers.
 */
public final class Headers {
  /** Most pairs one call can carry. */
  public static final int MAX_ENTRIES = 255;

  /** Longest key. */
  public static final int MAX_KEY_LENGTH = 255;

  /** Longest value. */
  public static final int MAX_VALUE_LENGTH = 65535;

  /** Keys ending in this hold binary values (base64 on the wire). */
  public static final String BINARY_SUFFIX = "-bin";

  /** Most bytes one binary value holds (its base64 form fits {@link #MAX_VALUE_LENGTH}). */
  public static final int MAX_BINARY_LENGTH = MAX_VALUE_LENGTH / 4 * 3;

  /** No headers. */
  public static final Headers EMPTY = new Headers(List.of());

  private final List<Map.Entry<String, String>> entries;

  private Headers(List<Map.Entry<String, String>> entries) {
    this.entries = entries;
  }

  /** Headers from alternating keys and values: {@code Headers.of("k1", "v1", "k2", "v2")}. */
  public static Headers of(String... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("Headers.of takes key, value pairs; got an odd count");
    }
    Builder b = builder();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      b.add(keysAndValues[i], keysAndValues[i + 1]);
    }
    return b.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The first value of {@code key}, or null. */
  public String get(String key) {
    for (Map.Entry<String, String> e : entries) {
      if (e.getKey().equals(key)) {
        return e.getValue();
      }
    }
    return null;
  }

  /** True when {@code key} names a binary value (it ends in {@value #BINARY_SUFFIX}). */
  public static boolean isBinaryKey(String key) {
    return key.endsWith(BINARY_SUFFIX);
  }

  /**
   * The first value of the binary key {@code key}, decoded, or null.
   *
   * @throws IllegalArgumentException if {@code key} does not end in {@value #BINARY_SUFFIX}
   */
  public byte[] getBinary(String key) {
    checkBinaryKey(key);
    String v = get(key);
    return v == null ? null : Base64.getDecoder().decode(v);
  }

  /** Every value of the binary key {@code key}, decoded, in order. */
  public List<byte[]> getAllBinary(String key) {
    checkBinaryKey(key);
    List<byte[]> out = new ArrayList<>(1);
    for (String v : getAll(key)) {
      out.add(Base64.getDecoder().decode(v));
    }
    return out;
  }

  private static void checkBinaryKey(String key) {
    if (!isBinaryKey(key)) {
      throw new IllegalArgumentException(
          "header '" + key + "' is not binary: binary keys end in " + BINARY_SUFFIX);
    }
  }

  /** Every value of {@code key}, in order. */
  public List<String> getAll(String key) {
    List<String> out = new ArrayList<>(1);
    for (Map.Entry<String, String> e : entries) {
      if (e.getKey().equals(key)) {
        out.add(e.getValue());
      }
    }
    return out;
  }

  /** All pairs in order. */
  public List<Map.Entry<String, String>> entries() {
    return entries;
  }

  public int size() {
    return entries.size();
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** A builder starting with these headers. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.entries.addAll(entries);
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Headers && ((Headers) o).entries.equals(entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  @Override
  public String toString() {
    return entries.toString();
  }

  /** Checks a key; returns it. */
  static String checkKey(String key) {
    Objects.requireNonNull(key, "header key");
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "header key must have 1.." + MAX_KEY_LENGTH + " characters, got " + key.length());
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
      if (!ok) {
        throw new IllegalArgumentException(
            "header key '" + key + "' has a character outside [a-z0-9-_.] at index " + i);
      }
    }
    return key;
  }

  /** Checks a value; returns it. */
  static String checkValue(String key, String value) {
    Objects.requireNonNull(value, "header value");
    if (value.length() > MAX_VALUE_LENGTH) {
      throw new IllegalArgumentException(
          "header '" + key + "' value is longer than " + MAX_VALUE_LENGTH + " characters");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        throw new IllegalArgumentException(
            "header '" + key + "' value has a non-printable-ASCII character at index " + i);
      }
    }
    if (isBinaryKey(key) && !isBase64(value)) {
      throw new IllegalArgumentException(
          "header '" + key + "' is binary (ends in " + BINARY_SUFFIX + ") but its value is not base64");
    }
    return value;
  }

  /** Standard-alphabet base64, with or without its padding. */
  private static boolean isBase64(String v) {
    int n = v.length();
    int pad = 0;
    while (pad < 2 && n - pad > 0 && v.charAt(n - pad - 1) == '=') {
      pad++;
    }
    int body = n - pad;
    if (pad > 0 && n % 4 != 0 || body % 4 == 1) {
      return false;
    }
    for (int i = 0; i < body; i++) {
      char c = v.charAt(i);
      boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Collects headers; not thread-safe. */
  public static final class Builder {
    private final List<Map.Entry<String, String>> entries = new ArrayList<>();

    private Builder() {}

    /** Adds a pair (keys may repeat). */
    public Builder add(String key, String value) {
      checkKey(key);
      checkValue(key, value);
      if (entries.size() == MAX_ENTRIES) {
        throw new IllegalArgumentException("more than " + MAX_ENTRIES + " headers");
      }
      entries.add(Map.entry(key, value));
      return this;
    }

    /**
     * Adds a binary value under {@code key}, which must end in {@value #BINARY_SUFFIX}; stored
     * base64-encoded without padding. At most {@link #MAX_BINARY_LENGTH} bytes.
     */
    public Builder addBinary(String key, byte[] value) {
      checkBinaryKey(key);
      Objects.requireNonNull(value, "header value");
      if (value.length > MAX_BINARY_LENGTH) {
        throw new IllegalArgumentException(
            "header '" + key + "' binary value is longer than " + MAX_BINARY_LENGTH + " bytes");
      }
      return add(key, Base64.getEncoder().withoutPadding().encodeToString(value));
    }

    /** Adds every pair of {@code other}. */
    public Builder addAll(Headers other) {
      for (Map.Entry<String, String> e : other.entries) {
        add(e.getKey(), e.getValue());
      }
      return this;
    }

    public Headers build() {
      return entries.isEmpty() ? EMPTY : new Headers(Collections.unmodifiableList(new ArrayList<>(entries)));
    }
  }
}

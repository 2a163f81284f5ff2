package io.sluice.transport.http2.internal;

/**
 * The ids of the newest streams one side reset, at most {@code max}, oldest forgotten first. A
 * ring that grows as needed; a lookup scans it (it is made only for a frame on a stream netty no
 * longer has).
 */
final class ResetIds {
  private final int max;
  private int[] ids = new int[16];
  private int size;
  private int next;

  ResetIds(int max) {
    this.max = max;
  }

  void add(int id) {
    if (size < ids.length) {
      ids[size++] = id;
    } else if (ids.length < max) {
      ids = java.util.Arrays.copyOf(ids, Math.min(max, ids.length * 2));
      ids[size++] = id;
    } else {
      ids[next] = id;
      next = (next + 1) % max;
    }
  }

  boolean contains(int id) {
    for (int i = 0; i < size; i++) {
      if (ids[i] == id) {
        return true;
      }
    }
    return false;
  }
}

package io.sluice.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.sluice.core.ConnectionObserver;
import io.sluice.core.ConnectionStats;
import io.sluice.core.ConnectionStats.CloseCause;
import io.sluice.core.ConnectionStats.Interaction;
import io.sluice.core.ConnectionStats.Limit;
import io.sluice.core.ConnectionStats.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

/**
 * The connection meters ({@code sluice.connections*}, {@code sluice.streams*}, {@code
 * sluice.frames}, {@code sluice.bytes}, {@code sluice.errors}, {@code sluice.limits.hit}): a
 * {@link ConnectionObserver} that keeps the {@link ConnectionStats} of the open connections and
 * reads them when the registry is scraped. The engine counts in plain fields on its event loops;
 * nothing here runs per frame.
 *
 * <p>Connections are grouped by {@code transport} and {@code side}; a group's meters are made when
 * its first connection opens (a closed set: a handful of transports, two sides). A meter's value
 * is the sum over the group's open connections plus the group's retired total, into which a
 * closing connection's counts are folded. Folding and reading hold the group's lock, so a counter
 * never goes back (a connection is never counted twice nor missed while it moves).
 */
final class ConnectionMeters implements ConnectionObserver {
  private final MeterRegistry registry;
  private final Tags common;
  private final ConcurrentHashMap<String, Group> groups = new ConcurrentHashMap<>();

  ConnectionMeters(MeterRegistry registry, Tags common) {
    this.registry = registry;
    this.common = common;
  }

  @Override
  public void opened(ConnectionStats stats) {
    Group g = group(stats);
    synchronized (g) {
      g.live.add(stats);
      g.opened++;
    }
  }

  @Override
  public void closed(ConnectionStats stats) {
    Group g = group(stats);
    synchronized (g) {
      if (!g.live.remove(stats)) {
        return;
      }
      for (int i = 0; i < g.readers.size(); i++) {
        g.retired[i] += g.readers.get(i).applyAsLong(stats);
      }
      CloseCause cause = stats.closeCause();
      Limit limit = stats.closeLimit();
      int index = cause == CloseCause.LIMIT && limit != null
          ? CloseCause.values().length + limit.ordinal()
          : cause.ordinal();
      g.closed[index]++;
    }
  }

  private Group group(ConnectionStats stats) {
    String side = stats.client() ? "client" : "server";
    String key = stats.transport() + '/' + side;
    Group g = groups.get(key);
    if (g == null) {
      g = groups.computeIfAbsent(key, k -> new Group(common.and("transport", stats.transport(), "side", side)));
    }
    return g;
  }

  /** One transport and side: its open connections, retired totals and meters. */
  private final class Group {
    final java.util.Set<ConnectionStats> live = new java.util.HashSet<>();
    /** One reader per summed figure; {@link #retired} holds their totals over closed connections. */
    final List<ToLongFunction<ConnectionStats>> readers = new ArrayList<>();
    long[] retired;
    long opened;
    final long[] closed = new long[CloseCause.values().length + Limit.values().length];

    Group(Tags tags) {
      for (int t = 0; t < ConnectionStats.FRAME_TYPES; t++) {
        if (t == 0) {
          continue; // type 0 is reserved: a frame of it is malformed, counted as such nowhere else
        }
        int type = t;
        String name = ConnectionStats.frameTypeName(t);
        counter("sluice.frames", "Frames by type and direction", tags.and("type", name, "direction", "in"), s -> s.frames(true, type));
        counter("sluice.frames", "Frames by type and direction", tags.and("type", name, "direction", "out"), s -> s.frames(false, type));
      }
      counter("sluice.bytes", "Frame bytes by direction (RSocket frames without transport framing)", tags.and("direction", "in"), s -> s.bytes(true));
      counter("sluice.bytes", "Frame bytes by direction (RSocket frames without transport framing)", tags.and("direction", "out"), s -> s.bytes(false));
      for (int c = 0; c < ConnectionStats.ERROR_CODES; c++) {
        int code = c;
        String name = ConnectionStats.errorCodeName(c);
        counter("sluice.errors", "ERROR frames by code and direction", tags.and("code", name, "direction", "in"), s -> s.errors(true, code));
        counter("sluice.errors", "ERROR frames by code and direction", tags.and("code", name, "direction", "out"), s -> s.errors(false, code));
      }
      for (Interaction i : Interaction.values()) {
        counter("sluice.streams.started", "Streams started, either side requesting", tags.and("interaction", i.tag()), s -> s.streamsStarted(i));
        for (Outcome o : Outcome.values()) {
          counter("sluice.streams", "Streams ended by interaction and outcome", tags.and("interaction", i.tag(), "outcome", o.tag()), s -> s.streamsEnded(i, o));
        }
        Gauge.builder("sluice.streams.active", this, g -> g.active(i))
            .description("Streams live now by interaction")
            .tags(tags.and("interaction", i.tag()))
            .register(registry);
      }
      for (Limit l : Limit.values()) {
        counter("sluice.limits.hit", "Times a bound of docs/limits.md refused or cut something", tags.and("limit", l.tag()), s -> s.limitHits(l));
      }
      counter("sluice.lease.grants", "LEASE frames sent (grants)", tags, s -> s.frames(false, FrameTypeIndex.LEASE));
      counter("sluice.lease.received", "LEASE frames received", tags, s -> s.frames(true, FrameTypeIndex.LEASE));
      retired = new long[readers.size()];
      Gauge.builder("sluice.connections", this, g -> g.open())
          .description("Connections open now")
          .tags(tags)
          .register(registry);
      FunctionCounter.builder("sluice.connections.opened", this, g -> g.openedCount())
          .description("Connections opened")
          .tags(tags)
          .register(registry);
      for (CloseCause c : CloseCause.values()) {
        if (c == CloseCause.LIMIT) {
          continue;
        }
        int index = c.ordinal();
        FunctionCounter.builder("sluice.connections.closed", this, g -> g.closedCount(index))
            .description("Connections closed by cause (and, for cause=limit, the limit)")
            .tags(tags.and("cause", c.tag(), "limit", "none"))
            .register(registry);
      }
      for (Limit l : Limit.values()) {
        if (!l.closes()) {
          continue;
        }
        int index = CloseCause.values().length + l.ordinal();
        FunctionCounter.builder("sluice.connections.closed", this, g -> g.closedCount(index))
            .description("Connections closed by cause (and, for cause=limit, the limit)")
            .tags(tags.and("cause", CloseCause.LIMIT.tag(), "limit", l.tag()))
            .register(registry);
      }
    }

    private void counter(String name, String help, Iterable<Tag> tags, ToLongFunction<ConnectionStats> read) {
      int index = readers.size();
      readers.add(read);
      FunctionCounter.builder(name, this, g -> g.sum(index))
          .description(help)
          .tags(tags)
          .register(registry);
    }

    synchronized double sum(int index) {
      ToLongFunction<ConnectionStats> read = readers.get(index);
      long total = retired == null ? 0 : retired[index]; // null: still being made
      for (ConnectionStats s : live) {
        total += read.applyAsLong(s);
      }
      return total;
    }

    synchronized double active(Interaction interaction) {
      long n = 0;
      for (ConnectionStats s : live) {
        n += s.streamsStarted(interaction);
        for (Outcome o : Outcome.values()) {
          n -= s.streamsEnded(interaction, o);
        }
      }
      return Math.max(0, n);
    }

    synchronized double open() {
      return live.size();
    }

    synchronized double openedCount() {
      return opened;
    }

    synchronized double closedCount(int index) {
      return closed[index];
    }
  }

  /** Type indexes of {@link ConnectionStats#frames} (the RSocket frame type codes). */
  private static final class FrameTypeIndex {
    static final int LEASE = 0x02;
  }
}

package io.sluice.transport.netty;

import io.netty.channel.EventLoopGroup;
import io.sluice.transport.netty.internal.EventLoops;

/** How a transport's {@code withIo} and {@code withEventLoopGroup} settle on one group. */
final class IoChoice {
  private IoChoice() {}

  /**
   * Fails early when {@code group} (null: none given) and {@code io} (null: none asked) cannot go
   * together: a group of no known engine, an engine that cannot run here, or a group of another
   * engine than the one asked for.
   */
  static void check(EventLoopGroup group, IoMode io) {
    if (io != null && io != IoMode.AUTO) {
      EventLoops.requireAvailable(io);
    }
    if (group != null) {
      IoMode engine = EventLoops.modeOf(group);
      if (io != null && io != IoMode.AUTO && io != engine) {
        throw new IllegalArgumentException(
            "the event loop group runs " + engine.label() + " I/O but withIo asked for "
                + io.label() + ": a channel must run on a group of its own engine; pass a group"
                + " made with EventLoops.newGroup(n, name, IoMode." + io.name() + ") or drop one"
                + " of the two");
      }
    }
  }

  /** The group to run on: {@code group} if given, else the shared group of {@code io}. */
  static EventLoopGroup group(EventLoopGroup group, IoMode io) {
    if (group != null) {
      return group;
    }
    return io == null ? EventLoops.shared() : EventLoops.shared(io);
  }
}

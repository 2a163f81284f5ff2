package io.sluice.transport.websocket.internal;

import io.netty.channel.ChannelHandler;
import java.time.Duration;
import java.util.Set;

/**
 * What the upgrade handlers check and offer; immutable.
 *
 * @param path the request path to serve (server) or to ask for (client), with any query
 * @param allowedOrigins Origin values accepted from browsers; null accepts any (server only)
 * @param maxInitialLineLength longest request or status line
 * @param maxHeaderSize most bytes of HTTP headers
 * @param upgradeTimeout time from connect to a completed upgrade
 * @param compression offer or accept permessage-deflate
 * @param httpFallback gets the connections whose first request is not a WebSocket upgrade; null
 *     answers them 426 (server only)
 */
public record UpgradeSettings(
    String path,
    Set<String> allowedOrigins,
    int maxInitialLineLength,
    int maxHeaderSize,
    Duration upgradeTimeout,
    boolean compression,
    ChannelHandler httpFallback) {

  public static final int DEFAULT_MAX_INITIAL_LINE_LENGTH = 4096;
  public static final int DEFAULT_MAX_HEADER_SIZE = 8192;
  public static final Duration DEFAULT_UPGRADE_TIMEOUT = Duration.ofSeconds(5);

  public static UpgradeSettings defaults(String path) {
    return new UpgradeSettings(
        path,
        null,
        DEFAULT_MAX_INITIAL_LINE_LENGTH,
        DEFAULT_MAX_HEADER_SIZE,
        DEFAULT_UPGRADE_TIMEOUT,
        false,
        null);
  }

  public UpgradeSettings withPath(String p) {
    return new UpgradeSettings(p, allowedOrigins, maxInitialLineLength, maxHeaderSize, upgradeTimeout, compression, httpFallback);
  }

  public UpgradeSettings withAllowedOrigins(Set<String> o) {
    return new UpgradeSettings(path, o, maxInitialLineLength, maxHeaderSize, upgradeTimeout, compression, httpFallback);
  }

  public UpgradeSettings withLimits(int line, int headers) {
    return new UpgradeSettings(path, allowedOrigins, line, headers, upgradeTimeout, compression, httpFallback);
  }

  public UpgradeSettings withUpgradeTimeout(Duration t) {
    return new UpgradeSettings(path, allowedOrigins, maxInitialLineLength, maxHeaderSize, t, compression, httpFallback);
  }

  public UpgradeSettings withCompression(boolean c) {
    return new UpgradeSettings(path, allowedOrigins, maxInitialLineLength, maxHeaderSize, upgradeTimeout, c, httpFallback);
  }

  public UpgradeSettings withHttpFallback(ChannelHandler h) {
    return new UpgradeSettings(path, allowedOrigins, maxInitialLineLength, maxHeaderSize, upgradeTimeout, compression, h);
  }
}

package io.sluice.flavor.tck;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/** What a test server saw, for the suite's assertions. */
final class ServerProbe {
  final BlockingQueue<String> fnf = new LinkedBlockingQueue<>();
  final CompletableFuture<Void> rrCanceled = new CompletableFuture<>();
  final CompletableFuture<Void> streamCanceled = new CompletableFuture<>();
  final AtomicLong emitted = new AtomicLong();
}

package io.sluice.rpc.blocking;

import java.util.concurrent.Executors;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The scheduler of the blocking flavor: a new virtual thread per task; cancelling interrupts it. */
final class VirtualThreads {
  static final Scheduler SCHEDULER =
      Schedulers.fromExecutorService(
          Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-rpc-vt-", 0).factory()),
          "sluice-rpc-virtual");

  private VirtualThreads() {}
}

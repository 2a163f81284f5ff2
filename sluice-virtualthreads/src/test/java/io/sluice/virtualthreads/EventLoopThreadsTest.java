package io.sluice.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.Message;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.internal.LoopAffinity;
import io.sluice.test.FinishingLoop;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Virtual threads carried by an event loop. This module's tests run with java.lang opened (see the
 * pom), as a user who opts in would; one test starts a JVM without it.
 */
@Timeout(60)
class EventLoopThreadsTest {
  private final DefaultEventExecutor loop = new DefaultEventExecutor();

  @AfterEach
  void stopLoop() throws Exception {
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
  }

  /** The carrier's name, as {@code VirtualThread.toString()} shows it while the thread runs. */
  private static String carrierOfCurrentThread() {
    String s = Thread.currentThread().toString(); // VirtualThread[#id]/runnable@carrier
    return s.substring(s.indexOf('@') + 1);
  }

  private String loopThreadName() throws Exception {
    return loop.submit(() -> Thread.currentThread().getName()).get();
  }

  /** JDK 21-23 virtual threads hold their carrier inside synchronized: no such threads there. */
  private static boolean modernJdk() {
    return Runtime.version().feature() >= EventLoopThreads.MIN_JDK;
  }

  @BeforeEach
  void needsJdk24() {
    Assumptions.assumeTrue(modernJdk(), "event-loop virtual threads need JDK 24+");
  }

  @Test
  void availableExactlyWhenJavaLangIsOpenToSluice() {
    assertThat(EventLoopThreads.isAvailable())
        .isEqualTo(
            Thread.class.getModule().isOpen("java.lang", EventLoopThreads.class.getModule()));
    assertThat(EventLoopThreads.isAvailable()).as("the pom's argLine opens java.lang").isTrue();
  }

  @Test
  void threadsRunOnTheLoopAndHoldItsClaim() throws Exception {
    CompletableFuture<List<Object>> seen = new CompletableFuture<>();
    EventLoopThreads.factory(loop)
        .newThread(
            () ->
                seen.complete(
                    List.of(
                        Thread.currentThread().isVirtual(),
                        carrierOfCurrentThread(),
                        LoopAffinity.isBoundTo(loop),
                        LoopAffinity.isBoundTo(new DefaultEventExecutor()))))
        .start();
    assertThat(seen.get(10, TimeUnit.SECONDS)).containsExactly(true, loopThreadName(), true, false);
  }

  /** A virtual thread of the loop, parked for good; {@code order} records when it resumes. */
  private Thread parkedThread(StringBuffer order) throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    Thread vt =
        EventLoopThreads.factory(loop)
            .newThread(
                () -> {
                  started.countDown();
                  LockSupport.park();
                  order.append("resumed;");
                });
    vt.start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    while (vt.getState() != Thread.State.WAITING) {
      Thread.onSpinWait(); // parked (not just between countDown and park)
    }
    return vt;
  }

  /**
   * Woken by Sluice on the loop's own thread (a response, a message, demand), a virtual thread
   * runs at once, inside the loop's current work: what it sends joins this turn's batch.
   */
  @Test
  void aThreadSluiceWakesOnTheLoopRunsBeforeTheWakeReturns() throws Exception {
    StringBuffer order = new StringBuffer();
    Thread vt = parkedThread(order);
    loop.submit(
            () -> {
              int[] window = InlineRuns.open();
              try {
                LockSupport.unpark(vt);
              } finally {
                InlineRuns.close(window);
              }
              order.append("wake returns;");
            })
        .sync();
    vt.join();
    assertThat(order.toString()).isEqualTo("resumed;wake returns;");
  }

  /**
   * Woken by other code on the loop (which may hold a lock the thread needs, or not expect it to
   * run inside its call), the thread waits for a loop task of its own.
   */
  @Test
  void aThreadOtherCodeWakesOnTheLoopRunsAfterThatCode() throws Exception {
    StringBuffer order = new StringBuffer();
    Thread vt = parkedThread(order);
    loop.submit(
            () -> {
              LockSupport.unpark(vt);
              order.append("task returns;");
            })
        .sync();
    vt.join();
    assertThat(order.toString()).isEqualTo("task returns;resumed;");
  }

  @Test
  void threadsOfALoopThatShutDownFinishOnTheCommonPoolAndNoLongerActAsTheLoop() throws Exception {
    AtomicReference<List<Object>> after = new AtomicReference<>();
    CountDownLatch parked = new CountDownLatch(1);
    Thread vt =
        EventLoopThreads.factory(loop)
            .newThread(
                () -> {
                  boolean boundBefore = LoopAffinity.isBoundTo(loop);
                  parked.countDown();
                  LockSupport.park();
                  after.set(
                      List.of(boundBefore, LoopAffinity.isBoundTo(loop), carrierOfCurrentThread()));
                });
    vt.start();
    assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
    String loopName = loopThreadName();
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    LockSupport.unpark(vt); // the loop refuses the continuation
    vt.join(10_000);
    assertThat(vt.isAlive()).as("the thread finished").isFalse();
    assertThat(after.get().subList(0, 2)).containsExactly(true, false);
    assertThat((String) after.get().get(2)).isNotEqualTo(loopName).contains("ForkJoinPool");
  }

  /**
   * A thread woken just as its loop shuts down, whose continuation the loop accepts but drops at
   * termination (netty's loops cannot take a task back out of their queue), still runs: on the
   * common pool, once the loop has terminated.
   */
  @Test
  void aThreadWhoseWakeUpTheLoopAcceptsButDropsFinishesOnTheCommonPool() throws Exception {
    FinishingLoop finishing = new FinishingLoop();
    try {
      AtomicReference<String> carrier = new AtomicReference<>();
      AtomicBoolean woken = new AtomicBoolean();
      CountDownLatch parked = new CountDownLatch(1);
      Thread vt =
          EventLoopThreads.factory(finishing)
              .newThread(
                  () -> {
                    parked.countDown();
                    while (!woken.get()) {
                      LockSupport.park();
                    }
                    carrier.set(carrierOfCurrentThread());
                  });
      vt.start();
      assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (vt.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
        Thread.sleep(1); // until it has parked: an unpark before that would hand nothing off
      }
      assertThat(vt.getState()).isEqualTo(Thread.State.WAITING);
      Thread waker =
          new Thread(
              () -> {
                woken.set(true);
                LockSupport.unpark(vt); // hands the continuation to the loop, late
              });
      finishing.landLateFrom(waker);
      waker.start();
      assertThat(finishing.lateHandOffWaiting.await(10, TimeUnit.SECONDS)).isTrue();
      finishing.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      waker.join(30_000);
      assertThat(waker.isAlive()).isFalse();
      assertThat(vt.isAlive()).as("not run by the loop, which is in its last step").isTrue();

      finishing.finish();
      vt.join(10_000);
      assertThat(vt.isAlive()).as("the thread finished").isFalse();
      assertThat(carrier.get()).contains("ForkJoinPool");
    } finally {
      finishing.finish();
      finishing.terminationFuture().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aServerWithEventLoopHandlersAnswersFromTheConnectionsLoop() throws Exception {
    String name = "vt-loop-" + System.nanoTime();
    ServerTransport.Bound server =
        serveLocalOnLoop(
            name,
            (setup, requester) ->
                new BlockingResponder() {
                  @Override
                  public Message requestResponse(Message request) {
                    String carrier = carrierOfCurrentThread();
                    request.release();
                    String loopName;
                    try {
                      loopName =
                          CompletableFuture.supplyAsync(
                                  () -> Thread.currentThread().getName(), requester.unwrap().executor())
                              .get(); // blocking here parks us, and the loop is free to answer
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                    return Message.utf8(
                        ByteBufAllocator.DEFAULT, Boolean.toString(carrier.equals(loopName)));
                  }
                });
    BlockingRequester client = connectLocal(name);
    try (Message reply = client.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, "where"))) {
      assertThat(reply.dataUtf8()).isEqualTo("true");
    } finally {
      client.dispose();
      server.close();
    }
  }

  /**
   * Over TCP, small messages (copied into the connection's write batch) and large ones (written as
   * their own buffers) from a handler on the loop's virtual threads, more than one 64 KiB batch of
   * them, then the end: the client gets every one, in order, and then the end.
   */
  @Test
  void smallAndLargeMessagesFromLoopThreadsArriveInOrderOverTcp() throws Exception {
    int n = 300;
    ServerTransport.Bound server =
        BlockingServer.serve(
            TcpServerTransport.create("127.0.0.1", 0),
            ConnectionOptions.defaults(),
            (setup, requester) ->
                new BlockingResponder() {
                  @Override
                  public void requestStream(Message request, BlockingSink out) {
                    request.release();
                    for (int i = 0; i < n; i++) {
                      int size = i % 3 == 0 ? 5000 : 10; // 5000 B: above the copy threshold
                      String head = i + ":";
                      out.send(
                          Message.utf8(
                              ByteBufAllocator.DEFAULT,
                              head + "x".repeat(size - head.length())));
                    }
                  }
                },
            HandlerThreads.EVENT_LOOP_VIRTUAL);
    int port = ((InetSocketAddress) server.address()).getPort();
    BlockingRequester client =
        BlockingClient.connect(
            TcpClientTransport.create("127.0.0.1", port),
            ConnectionOptions.defaults(),
            ClientSetup.defaults(),
            r -> null,
            HandlerThreads.EVENT_LOOP_VIRTUAL);
    try {
      CompletableFuture<List<String>> got = new CompletableFuture<>();
      client
          .eventLoopThreads()
          .newThread(
              () -> {
                List<String> heads = new ArrayList<>();
                try (BlockingStream s =
                    client.requestStream(Message.utf8(ByteBufAllocator.DEFAULT, "go"), 16)) {
                  while (s.hasNext()) {
                    try (Message m = s.next()) {
                      String d = m.dataUtf8();
                      heads.add(d.substring(0, d.indexOf(':')) + "/" + d.length());
                    }
                  }
                  got.complete(heads);
                } catch (Throwable t) {
                  got.completeExceptionally(t);
                }
              })
          .start();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        expected.add(i + "/" + (i % 3 == 0 ? 5000 : 10));
      }
      assertThat(got.get(30, TimeUnit.SECONDS)).containsExactlyElementsOf(expected);
    } finally {
      client.dispose();
      server.close();
    }
  }

  /**
   * Callers from two factories (two claims on the same loop) share one connection, each thread
   * making several calls: every call gets its own answer.
   */
  @Test
  void callersOfTwoFactoriesShareAConnection() throws Exception {
    String name = "vt-loop-two-" + System.nanoTime();
    ServerTransport.Bound server =
        serveLocalOnLoop(
            name,
            (setup, requester) ->
                new BlockingResponder() {
                  @Override
                  public Message requestResponse(Message request) {
                    try {
                      return Message.utf8(ByteBufAllocator.DEFAULT, "re:" + request.dataUtf8());
                    } finally {
                      request.release();
                    }
                  }
                });
    BlockingRequester client = connectLocal(name);
    try {
      List<java.util.concurrent.ThreadFactory> factories =
          List.of(client.eventLoopThreads(), client.eventLoopThreads());
      int threadsPerFactory = 20;
      int calls = 25;
      java.util.Queue<String> wrong = new java.util.concurrent.ConcurrentLinkedQueue<>();
      List<Thread> threads = new ArrayList<>();
      for (int f = 0; f < factories.size(); f++) {
        for (int t = 0; t < threadsPerFactory; t++) {
          String id = f + "." + t;
          Thread th =
              factories
                  .get(f)
                  .newThread(
                      () -> {
                        for (int c = 0; c < calls; c++) {
                          String q = id + "." + c;
                          try (Message m =
                              client.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, q))) {
                            if (!m.dataUtf8().equals("re:" + q)) {
                              wrong.add(q + " -> " + m.dataUtf8());
                            }
                          } catch (RuntimeException e) {
                            wrong.add(q + " -> " + e);
                          }
                        }
                      });
          threads.add(th);
          th.start();
        }
      }
      for (Thread th : threads) {
        th.join(30_000);
        assertThat(th.isAlive()).as("caller finished").isFalse();
      }
      assertThat(wrong).isEmpty();
    } finally {
      client.dispose();
      server.close();
    }
  }

  private static ServerTransport.Bound serveLocalOnLoop(
      String name, BlockingServer.BlockingAcceptor acceptor) {
    return BlockingServer.serve(
        LocalTransport.server(name),
        ConnectionOptions.defaults(),
        acceptor,
        HandlerThreads.EVENT_LOOP_VIRTUAL);
  }

  private static BlockingRequester connectLocal(String name) {
    return BlockingClient.connect(
        LocalTransport.client(name), ConnectionOptions.defaults(), ClientSetup.defaults(), r -> null);
  }

  /** Without java.lang opened there are no such threads, and the error says what to add. */
  @Test
  void aJvmWithoutTheOpeningGetsAnErrorSayingWhatToAdd() throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Unopened.class.getName())
            .redirectErrorStream(true)
            .start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the child JVM ended").isTrue();
      try (InputStream in = p.getInputStream()) {
        in.transferTo(out); // a few lines: they fit the pipe while the child runs
      }
    } finally {
      p.destroyForcibly();
    }
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("available=false")
        .contains("UnsupportedOperationException")
        .contains("--add-opens java.base/java.lang=ALL-UNNAMED")
        .contains("serve: UnsupportedOperationException")
        .doesNotContain("no error")
        .doesNotContain("served");
    assertThat(p.exitValue()).isZero();
  }

  /** Run in a JVM without {@code --add-opens}: prints what a user would see. */
  static final class Unopened {
    public static void main(String[] args) {
      System.out.println("available=" + EventLoopThreads.isAvailable());
      try {
        EventLoopThreads.factory(Runnable::run);
        System.out.println("no error");
      } catch (UnsupportedOperationException e) {
        System.out.println(e);
      }
      try {
        BlockingServer.serve(
            LocalTransport.server("unopened"),
            ConnectionOptions.defaults(),
            (setup, requester) -> new BlockingResponder() {},
            HandlerThreads.EVENT_LOOP_VIRTUAL);
        System.out.println("served");
      } catch (UnsupportedOperationException e) {
        System.out.println("serve: " + e.getClass().getSimpleName());
      }
    }
  }
}

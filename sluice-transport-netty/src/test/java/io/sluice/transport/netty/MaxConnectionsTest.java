package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.transport.ServerTransport;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link TcpServerTransport#withMaxConnections}: connections over the cap are closed on accept. */
class MaxConnectionsTest {

  @Test
  void connectionsOverTheCapAreClosedAndFreedSlotsAreReused() throws Exception {
    ConcurrentLinkedQueue<io.sluice.transport.DuplexTransport> accepted = new ConcurrentLinkedQueue<>();
    ServerTransport.Bound bound =
        TcpServerTransport.create("127.0.0.1", 0)
            .withMaxConnections(2)
            .bind(accepted::add)
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) bound.address()).getPort();
    List<Socket> sockets = new ArrayList<>();
    try {
      Socket a = connect(port, sockets);
      Socket b = connect(port, sockets);
      Socket over = connect(port, sockets);
      // Over the cap: closed by the server without a byte (hang guard 10 s).
      assertThat(over.getInputStream().read()).isEqualTo(-1);
      // The two within the cap stay open: nothing to read, no EOF.
      for (Socket s : List.of(a, b)) {
        s.setSoTimeout(200);
        InputStream in = s.getInputStream();
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
      }
      // Only the two within the cap reached the connection handler.
      assertThat(accepted).hasSize(2);
      // One is closed (here by the server side: nothing reads these raw connections, so the
      // server would not notice a client's close): its slot is free again.
      io.sluice.transport.DuplexTransport first = accepted.poll();
      first.executor().execute(first::close);
      // Accept order need not be connect order: whichever of a and b it served sees EOF.
      assertThat(awaitEof(a, b)).as("one of the admitted connections closed").isTrue();
      Socket again = null;
      for (int attempt = 0; attempt < 100 && again == null; attempt++) {
        Socket s = connect(port, sockets);
        s.setSoTimeout(200);
        try {
          if (s.getInputStream().read() == -1) {
            Thread.sleep(50); // the slot is not free yet
            continue;
          }
        } catch (SocketTimeoutException e) {
          again = s; // open: admitted
        }
      }
      assertThat(again).as("a connection admitted after one left").isNotNull();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
      for (io.sluice.transport.DuplexTransport t : accepted) {
        t.executor().execute(t::close);
      }
      bound.close();
    }
  }

  @Test
  void capMustBePositive() {
    assertThatThrownBy(() -> TcpServerTransport.create("127.0.0.1", 0).withMaxConnections(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** True once one of the sockets reads EOF (at most about 10 s of polling, a hang guard). */
  private static boolean awaitEof(Socket... candidates) throws Exception {
    for (int round = 0; round < 50; round++) {
      for (Socket s : candidates) {
        s.setSoTimeout(100);
        try {
          if (s.getInputStream().read() == -1) {
            return true;
          }
        } catch (SocketTimeoutException e) {
          // still open
        }
      }
    }
    return false;
  }

  private static Socket connect(int port, List<Socket> sockets) throws Exception {
    Socket s = new Socket();
    sockets.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    s.setSoTimeout(10_000);
    return s;
  }
}

package io.sluice.cli;

import io.sluice.test.FrameBuilder;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw TCP RSocket server for one connection that accepts the SETUP, answers each
 * REQUEST_RESPONSE with {@code echo:<data>}, and ignores every KEEPALIVE: a peer that is otherwise
 * alive but never answers keepalives. Written with plain sockets, so nothing of Sluice answers for
 * it.
 */
final class SilentKeepAlivePeer implements AutoCloseable {
  private final ServerSocket server;
  private final Thread thread;
  private volatile Socket socket;
  private volatile boolean closing;
  /** The SETUP's keepalive interval and max lifetime, -1 until one arrived. */
  volatile int setupKeepAlive = -1;
  volatile int setupLifetime = -1;
  /** KEEPALIVE frames received (and left unanswered). */
  final AtomicInteger keepAlives = new AtomicInteger();
  /** Completes when the connection ends: normally at a frame boundary, exceptionally otherwise. */
  final CompletableFuture<Void> done = new CompletableFuture<>();

  SilentKeepAlivePeer() throws IOException {
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    server.setSoTimeout(10_000);
    thread = new Thread(this::serve, "silent-keepalive-peer");
    thread.setDaemon(true);
    thread.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void serve() {
    try (Socket s = server.accept()) {
      socket = s;
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      for (; ; ) {
        int b0 = in.read();
        if (b0 < 0) {
          break;
        }
        int length = (b0 << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
        byte[] frame = new byte[length];
        in.readFully(frame);
        ByteBuffer f = ByteBuffer.wrap(frame);
        int streamId = f.getInt(0) & 0x7FFFFFFF;
        int typeAndFlags = f.getShort(4) & 0xFFFF;
        int type = typeAndFlags >>> 10;
        if (type == FrameBuilder.TYPE_SETUP) {
          setupKeepAlive = f.getInt(10);
          setupLifetime = f.getInt(14);
        } else if (type == FrameBuilder.TYPE_KEEPALIVE) {
          keepAlives.incrementAndGet();
        } else if (type == FrameBuilder.TYPE_REQUEST_RESPONSE) {
          int dataStart = 6;
          if ((typeAndFlags & FrameBuilder.FLAG_METADATA) != 0) {
            int mdLength = ((frame[6] & 0xFF) << 16) | ((frame[7] & 0xFF) << 8) | (frame[8] & 0xFF);
            dataStart = 9 + mdLength;
          }
          String data = new String(frame, dataStart, frame.length - dataStart, StandardCharsets.UTF_8);
          byte[] reply = FrameBuilder.payload(streamId, true, true).data("echo:" + data).toBytes();
          out.write(FrameBuilder.lengthPrefixed(reply));
          out.flush();
        }
      }
      done.complete(null);
    } catch (EOFException e) {
      done.completeExceptionally(new AssertionError("the client closed mid-frame", e));
    } catch (SocketException e) {
      if (closing) {
        done.complete(null);
      } else {
        done.completeExceptionally(e);
      }
    } catch (Throwable t) {
      done.completeExceptionally(t);
    }
  }

  @Override
  public void close() throws Exception {
    closing = true;
    Socket s = socket;
    if (s != null) {
      s.close();
    }
    server.close();
    thread.join(TimeUnit.SECONDS.toMillis(10));
  }
}
